import type { BlockVersion } from "../contracts/block-history.js";
import type { SessionInfo } from "../contracts/session-info.js";
import { decodeMessage, searchableText } from "./message-codec.js";
import type { OverlaySpan } from "../tree/apply-compactions.js";
import { messagesFromSpans } from "../tree/path-history.js";
import type {
  CompactionMeta,
  SearchResult,
  SessionMessage,
  StoredCompaction,
} from "../contracts/types.js";

/** How SQL backends store an overlay. */
export interface CompactionRow {
  id: string;
  summary: string;
  from_message_id: string;
  to_message_id: string;
  created_at: string;
  /** JSON text, or (PostgreSQL JSONB) an already parsed object. */
  meta: string | Record<string, unknown> | null;
}

/** An overlay row as a `StoredCompaction`; unreadable `meta` is dropped. */
export function compactionFromRow(row: CompactionRow): StoredCompaction {
  const compaction: StoredCompaction = {
    id: row.id,
    summary: row.summary,
    fromMessageId: row.from_message_id,
    toMessageId: row.to_message_id,
    createdAt: row.created_at,
  };
  const meta = parseMeta(row.meta);
  if (meta) compaction.meta = meta;
  return compaction;
}

/** How SQL backends return a search hit: the stored message and its insertion time. */
export interface HitRow {
  id: string;
  role: string;
  content: string;
  created_at: string;
  session_id?: string;
}

/** Search hits with the indexed text rebuilt from each stored message; unreadable rows are skipped. */
export function searchResultsFromRows(rows: readonly HitRow[]): SearchResult[] {
  const results: SearchResult[] = [];
  for (const row of rows) {
    const message = decodeMessage(row.content);
    if (message === null) continue;
    results.push({
      id: row.id,
      role: row.role,
      content: searchableText(message),
      createdAt: row.created_at,
      ...(row.session_id !== undefined ? { sessionId: row.session_id } : {}),
    });
  }
  return results;
}

/** Turns overlay spans into messages: stored rows are decoded (unparseable ones skipped), summaries synthesized. */
export function materializeSpans(
  spans: readonly OverlaySpan[],
  contentAt: (index: number) => string | undefined,
): SessionMessage[] {
  return messagesFromSpans(spans, (index) => {
    const content = contentAt(index);
    return content === undefined ? null : decodeMessage(content);
  });
}

/** Decodes stored message texts, skipping the ones that are not messages. */
export function decodeAll(contents: readonly string[]): SessionMessage[] {
  const messages: SessionMessage[] = [];
  for (const content of contents) {
    const message = decodeMessage(content);
    if (message) messages.push(message);
  }
  return messages;
}

/** How SQL backends store a block version (`arbor_block_history`). */
export interface BlockVersionRow {
  version: number | string;
  content: string;
  previous_content: string | null;
  source: BlockVersion["source"];
  tool_call_id: string | null;
  at: string;
}

export function blockVersionFromRow(row: BlockVersionRow): BlockVersion {
  return {
    version: Number(row.version),
    content: row.content,
    previousContent: row.previous_content,
    source: row.source,
    ...(row.tool_call_id !== null ? { toolCallId: row.tool_call_id } : {}),
    at: row.at,
  };
}

/** A registry row as drivers return it: counters may come back as strings (BIGINT, NUMERIC). */
export type SessionInfoRow = Omit<
  SessionInfo,
  "input_tokens" | "output_tokens" | "estimated_cost"
> & {
  input_tokens: number | string | null;
  output_tokens: number | string | null;
  estimated_cost: number | string | null;
};

/** A registry row with SQL's loose types (nulls, numeric strings) made exact. */
export function sessionInfoFromRow(row: SessionInfoRow): SessionInfo {
  return {
    id: row.id,
    name: row.name,
    parent_session_id: row.parent_session_id ?? null,
    model: row.model ?? null,
    source: row.source ?? null,
    input_tokens: Number(row.input_tokens ?? 0),
    output_tokens: Number(row.output_tokens ?? 0),
    estimated_cost: Number(row.estimated_cost ?? 0),
    end_reason: row.end_reason ?? null,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

// --- Internal helpers ---

function parseMeta(meta: CompactionRow["meta"]): CompactionMeta | undefined {
  if (meta === null || meta === undefined) return undefined;
  let value: unknown = meta;
  if (typeof meta === "string") {
    try {
      value = JSON.parse(meta);
    } catch {
      return undefined;
    }
  }
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value
    : undefined;
}

/**
 * The registry row a backend writes for a session on its first stored message when no row exists
 * (docs/behavior/manager.md#sessions-written-without-the-manager): a session written by
 * `Session.create(store).forSession(id)` is then listed like a managed one, named by its id. The
 * unnamed session `""` gets no row: it has no id to address it by.
 */
export function firstWriteSessionInfo(
  sessionId: string,
  at: string,
): SessionInfo {
  return {
    id: sessionId,
    name: sessionId,
    parent_session_id: null,
    model: null,
    source: null,
    input_tokens: 0,
    output_tokens: 0,
    estimated_cost: 0,
    end_reason: null,
    created_at: at,
    updated_at: at,
  };
}
