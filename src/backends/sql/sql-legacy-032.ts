import { encodeBase64 } from "../../session/encoding/base64.js";
import type { SqlProvider } from "../../session/contracts/sql-provider.js";
import { countOf } from "./sql-count.js";
import { insertContinuations, splitContent } from "./sql-message-chunks.js";

/** The pointer agents@0.32 leaves in a media part's `url` in place of its payload. */
const ATTACHMENT_POINTER = "attachment:sha256:";

/**
 * Lifts a database written by agents@0.32's `agents/sessions` (docs/behavior/storage.md) into
 * Arbor's message store, in place. Every message row keeps its session, id, parent, role and
 * time (epoch milliseconds become ISO-8601) and its order (Arbor `seq` follows the package's
 * per-session `seq`); a message split over continuation rows is joined whole and re-split by
 * Arbor's own row budget; media parts whose payload was moved out (`attachment:sha256:<hex>`)
 * get their `data:` URL back; compaction overlays keep their ids and ranges. The search index is
 * not copied: Arbor's lazy catch-up indexes the lifted rows on the first search.
 *
 * The package's tables are dropped only when every row was lifted and every pointer resolved;
 * otherwise (an id Arbor already holds, a row kind Arbor does not know, a payload that is gone)
 * they stay, so nothing is lost. `cf_agents_session_config` belongs to the package's hosts and is
 * left alone. Must run inside the caller's transaction, after Arbor's tables exist.
 */
export function liftAgents032Tables(agent: SqlProvider): void {
  if (!hasTable(agent, "cf_agents_session_messages")) return;
  const messagesComplete = liftMessages(agent);
  const compactionsComplete = hasTable(agent, "cf_agents_session_compactions")
    ? liftCompactions(agent)
    : true;
  if (!messagesComplete || !compactionsComplete) return;
  // Names cannot be bound parameters, so each table is dropped by its own statement.
  agent.sql`DROP TABLE IF EXISTS cf_agents_session_fts`;
  agent.sql`DROP TABLE IF EXISTS cf_agents_session_attachment_refs`;
  agent.sql`DROP TABLE IF EXISTS cf_agents_session_attachment_chunks`;
  agent.sql`DROP TABLE IF EXISTS cf_agents_session_attachment_meta`;
  agent.sql`DROP TABLE IF EXISTS cf_agents_session_compactions`;
  agent.sql`DROP TABLE IF EXISTS cf_agents_session_message_chunks`;
  agent.sql`DROP TABLE cf_agents_session_messages`;
}

// --- Internal helpers ---

interface SourceRow {
  session_id: string;
  id: string;
  content_chunks: number;
}

function hasTable(agent: SqlProvider, table: string): boolean {
  const rows = agent.sql<{ n: number }>`
    SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = ${table}`;
  return countOf(rows, `table ${table}`) > 0;
}

function lastMessageSeq(agent: SqlProvider): number {
  const [row] = agent.sql<{ seq: number | null }>`
    SELECT MAX(seq) AS seq FROM assistant_messages`;
  return row?.seq ?? 0;
}

/** Copies the message rows (first slices), then joins split rows and restores their media. */
function liftMessages(agent: SqlProvider): boolean {
  const after = lastMessageSeq(agent);
  agent.sql`INSERT OR IGNORE INTO assistant_messages (id, session_id, parent_id, role, content, created_at)
    SELECT id, session_id, parent_id, role, content,
      strftime('%Y-%m-%dT%H:%M:%S', created_at / 1000, 'unixepoch') || printf('.%03dZ', created_at % 1000)
    FROM cf_agents_session_messages WHERE type = 'message'
    ORDER BY session_id, seq`;
  const lifted = agent.sql<{ n: number }>`
    SELECT COUNT(*) AS n FROM assistant_messages WHERE seq > ${after}`;
  const source = agent.sql<{ n: number }>`
    SELECT COUNT(*) AS n FROM cf_agents_session_messages`;
  let complete =
    countOf(lifted, "the lifted messages") ===
    countOf(source, "the agents@0.32 messages");

  const hasChunks = hasTable(agent, "cf_agents_session_message_chunks");
  const targets = new Map<string, SourceRow>();
  const remember = (row: SourceRow) =>
    targets.set(JSON.stringify([row.session_id, row.id]), row);
  agent.sql<SourceRow>`SELECT session_id, id, content_chunks FROM cf_agents_session_messages
      WHERE type = 'message' AND content_chunks > 0`.forEach(remember);
  if (hasTable(agent, "cf_agents_session_attachment_refs")) {
    agent.sql<SourceRow>`SELECT m.session_id, m.id, m.content_chunks FROM cf_agents_session_messages AS m
        WHERE m.type = 'message' AND EXISTS (SELECT 1 FROM cf_agents_session_attachment_refs AS r
          WHERE r.session_id = m.session_id AND r.message_id = m.id)`.forEach(
      remember,
    );
  }
  for (const row of targets.values()) {
    if (row.content_chunks > 0 && !hasChunks) complete = false;
    else if (!rewriteMessage(agent, row, after)) complete = false;
  }
  return complete;
}

/**
 * Joins one message's continuation rows, puts its media payloads back, and stores it with Arbor's
 * own split. Returns false when a piece or a payload is missing (the row then keeps what it had).
 */
function rewriteMessage(
  agent: SqlProvider,
  source: SourceRow,
  after: number,
): boolean {
  const { session_id: sessionId, id, content_chunks: chunkCount } = source;
  // Only a row this lift wrote: an id Arbor already held keeps Arbor's row.
  const [target] = agent.sql<{ seq: number; content: string }>`
    SELECT seq, content FROM assistant_messages
    WHERE session_id = ${sessionId} AND id = ${id} AND seq > ${after}`;
  if (!target) return false;
  let json = target.content;
  if (chunkCount > 0) {
    const pieces = agent.sql<{ content: string }>`
      SELECT content FROM cf_agents_session_message_chunks
      WHERE session_id = ${sessionId} AND id = ${id} ORDER BY idx`;
    if (pieces.length !== chunkCount) return false;
    json += pieces.map((piece) => piece.content).join("");
  }
  let complete = true;
  if (json.includes(ATTACHMENT_POINTER)) {
    const restored = restoreAttachments(agent, json);
    json = restored.json;
    complete = restored.complete;
  }
  if (json === target.content && chunkCount === 0) return complete;
  const split = splitContent(json);
  agent.sql`UPDATE assistant_messages SET content = ${split.head}, chunked_bytes = ${split.chunkedBytes}
    WHERE seq = ${target.seq}`;
  insertContinuations(agent, target.seq, split.continuations);
  return complete;
}

/** Replaces each media part's pointer with the `data:` URL of its stored payload. */
function restoreAttachments(
  agent: SqlProvider,
  json: string,
): { json: string; complete: boolean } {
  const message = JSON.parse(json) as { parts?: unknown };
  if (!Array.isArray(message.parts)) return { json, complete: true };
  let complete = true;
  message.parts = message.parts.map((part: unknown) => {
    const url = (part as { url?: unknown } | null)?.url;
    if (typeof url !== "string" || !url.startsWith(ATTACHMENT_POINTER))
      return part;
    const dataUrl = readPayload(agent, url.slice(ATTACHMENT_POINTER.length));
    if (dataUrl === null) {
      complete = false;
      return part;
    }
    return { ...(part as object), url: dataUrl };
  });
  return { json: JSON.stringify(message), complete };
}

/** A payload as a `data:` URL, or `null` when its metadata or a piece of it is missing. */
function readPayload(agent: SqlProvider, hash: string): string | null {
  const [meta] = agent.sql<{ media_type: string; chunks: number }>`
    SELECT media_type, chunks FROM cf_agents_session_attachment_meta WHERE hash = ${hash}`;
  if (!meta) return null;
  const pieces = agent.sql<{ data: ArrayBuffer | Uint8Array }>`
    SELECT data FROM cf_agents_session_attachment_chunks WHERE hash = ${hash} ORDER BY idx`;
  if (pieces.length !== meta.chunks) return null;
  const parts = pieces.map((piece) =>
    piece.data instanceof Uint8Array ? piece.data : new Uint8Array(piece.data),
  );
  const bytes = new Uint8Array(
    parts.reduce((sum, part) => sum + part.length, 0),
  );
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.length;
  }
  return `data:${meta.media_type};base64,${encodeBase64(bytes)}`;
}

/** Copies the overlays with their ids, ranges and times, in the package's order. */
function liftCompactions(agent: SqlProvider): boolean {
  const before = countOf(
    agent.sql<{ n: number }>`SELECT COUNT(*) AS n FROM assistant_compactions`,
    "the overlays before the lift",
  );
  agent.sql`INSERT OR IGNORE INTO assistant_compactions
      (id, session_id, summary, from_message_id, to_message_id, created_at)
    SELECT id, session_id, summary, from_message_id, to_message_id,
      strftime('%Y-%m-%dT%H:%M:%S', created_at / 1000, 'unixepoch') || printf('.%03dZ', created_at % 1000)
    FROM cf_agents_session_compactions
    ORDER BY session_id, seq`;
  const source = agent.sql<{ n: number }>`
    SELECT COUNT(*) AS n FROM cf_agents_session_compactions`;
  const now = agent.sql<{ n: number }>`
    SELECT COUNT(*) AS n FROM assistant_compactions`;
  return (
    countOf(now, "the overlays after the lift") - before ===
    countOf(source, "the agents@0.32 overlays")
  );
}
