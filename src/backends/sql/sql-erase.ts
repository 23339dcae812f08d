import {
  zeroCounts,
  type EraseCounts,
  type StoreEraseResult,
  type StoreEraseTarget,
} from "../../session/contracts/erase.js";
import type { SqlProvider } from "../../session/contracts/sql-provider.js";
import {
  configMentions,
  overlaysCovering,
  historyEntry,
  relinkHistory,
  toolCallIdsOf,
  type HistoryRow,
} from "../../session/erase/erase-rules.js";
import { ensureBlockHistoryTable } from "./sql-block-history.js";
import { readCompactions } from "./sql-compactions.js";
import { ensureContextBlockTable } from "./sql-context-provider.js";
import { readContentsByIds } from "./sql-message-chunks.js";
import { loadAncestorLinks } from "./sql-path.js";
import { ensureRegistryTable } from "./sql-registry-table.js";
import { releaseAttachments } from "./sql-attachments.js";
import { rewriteStaleIndexRows } from "./sql-search.js";
import { eraseSqlStreams } from "./sql-streams.js";
import { atomically } from "./sql-transaction.js";
import { deleteMessageRows } from "./sql-writes.js";

/**
 * Erase on a `sql` store (SQLite, Durable Objects; docs/behavior/erase-and-retention.md): one
 * target in one transaction, so a crash leaves it whole or untouched. The FTS5 rows go with
 * FTS5's `secure-delete` on, so no term of an erased message stays behind in the index's
 * segments (a plain FTS5 delete only adds a tombstone until the next merge). `dryRun` only
 * counts; `pending` carries the attachment references earlier targets of a dry run release.
 */
export function eraseSqlTarget(
  agent: SqlProvider,
  target: StoreEraseTarget,
  dryRun: boolean,
  pending: Map<string, number> = new Map(),
): StoreEraseResult {
  ensureRegistryTable(agent); // creates the registry and message tables if new
  ensureBlockHistoryTable(agent);
  ensureContextBlockTable(agent);
  return atomically(agent, () => {
    const plan = planErase(agent, target, pending);
    if (!dryRun) applyErase(agent, target, plan);
    return {
      counts: plan.counts,
      messageIds: plan.messages.map((m) => m.id),
      overlayIds: plan.overlayIds,
    };
  });
}

// --- Internal helpers ---

interface ErasePlan {
  counts: EraseCounts;
  messages: Array<{ seq: number; id: string }>;
  overlayIds: string[];
  toolCallIds: string[];
  configKeys: string[];
}

function planErase(
  agent: SqlProvider,
  target: StoreEraseTarget,
  pending: Map<string, number>,
): ErasePlan {
  const { sessionId } = target;
  const whole = target.messageIds === null;
  const ids = JSON.stringify(target.messageIds ?? []);
  const messages = whole
    ? agent.sql<{ seq: number; id: string }>`
        SELECT seq, id FROM assistant_messages WHERE session_id = ${sessionId} ORDER BY seq`
    : agent.sql<{ seq: number; id: string }>`
        SELECT seq, id FROM assistant_messages WHERE session_id = ${sessionId}
          AND id IN (SELECT value FROM json_each(${ids})) ORDER BY seq`;
  const doomed = new Set(messages.map((m) => m.id));
  const overlays = readCompactions(agent, sessionId);
  const dropped = whole
    ? overlays
    : overlaysCovering(overlays, doomed, (overlay) => {
        const links = loadAncestorLinks(
          agent,
          sessionId,
          overlay.toMessageId,
          overlay.fromMessageId,
        );
        return links.some((link) => link.id === overlay.fromMessageId)
          ? links.map((link) => link.id)
          : null;
      });
  const toolCallIds = whole
    ? []
    : [...readContentsByIds(agent, sessionId, [...doomed]).values()].flatMap(
        toolCallIdsOf,
      );
  const configKeys = agent.sql<{ key: string; value: string }>`
      SELECT key, value FROM assistant_config WHERE session_id = ${sessionId}`
    .filter((row) => whole || configMentions(row.key, row.value, doomed))
    .map((row) => row.key);
  const seqs = JSON.stringify(messages.map((m) => m.seq));
  const count = (rows: Array<{ n: number }>) => Number(rows[0]?.n ?? 0);
  const counts = zeroCounts();
  counts.messages = messages.length;
  counts.overlays = dropped.length;
  counts.indexRows = count(agent.sql<{ n: number }>`
    SELECT COUNT(*) AS n FROM assistant_fts WHERE rowid IN (SELECT value FROM json_each(${seqs}))`);
  counts.blockVersions = whole
    ? count(agent.sql<{ n: number }>`
        SELECT COUNT(*) AS n FROM arbor_block_history WHERE session_id = ${sessionId}`)
    : count(agent.sql<{ n: number }>`
        SELECT COUNT(*) AS n FROM arbor_block_history WHERE session_id = ${sessionId}
          AND tool_call_id IN (SELECT value FROM json_each(${JSON.stringify(toolCallIds)}))`);
  counts.configRows = configKeys.length;
  if (whole) {
    counts.sessions = count(agent.sql<{ n: number }>`
      SELECT COUNT(*) AS n FROM assistant_sessions WHERE id = ${sessionId}`);
    counts.changeLogRows = count(agent.sql<{ n: number }>`
      SELECT COUNT(*) AS n FROM arbor_changes WHERE session_id = ${sessionId}`);
    counts.contextRows = count(agent.sql<{ n: number }>`
      SELECT COUNT(*) AS n FROM cf_agents_context_blocks
      WHERE label IN (SELECT value FROM json_each(${JSON.stringify(target.contextKeys)}))`);
  }
  const references = agent.sql<{ hash: string }>`
    SELECT hash FROM arbor_attachment_refs WHERE session_id = ${sessionId}
      AND (${whole ? 1 : 0} = 1 OR message_id IN (SELECT value FROM json_each(${ids})))`;
  for (const { hash } of references) {
    const released = (pending.get(hash) ?? 0) + 1;
    pending.set(hash, released);
    const total = count(agent.sql<{ n: number }>`
      SELECT COUNT(*) AS n FROM arbor_attachment_refs WHERE hash = ${hash}`);
    if (released === total) counts.attachments++;
  }
  return {
    counts,
    messages,
    overlayIds: dropped.map((overlay) => overlay.id),
    toolCallIds,
    configKeys,
  };
}

function applyErase(
  agent: SqlProvider,
  target: StoreEraseTarget,
  plan: ErasePlan,
): void {
  deleteRows(agent, target, plan);
  eraseSqlStreams(agent, target.sessionId);
  // Last, as the message deletes above mark index rows stale: the erased rows' index rows go now,
  // and so does every other stale one (text an earlier delete or update left behind), all with
  // secure-delete, so nothing of it outlives the erase in the index's segments.
  const seqs = JSON.stringify(plan.messages.map((m) => m.seq));
  withSecureDelete(agent, () => {
    agent.sql`DELETE FROM assistant_fts WHERE rowid IN (SELECT value FROM json_each(${seqs}))`;
    agent.sql`DELETE FROM arbor_fts_stale WHERE seq IN (SELECT value FROM json_each(${seqs}))`;
    rewriteStaleIndexRows(agent);
  });
}

function deleteRows(
  agent: SqlProvider,
  target: StoreEraseTarget,
  plan: ErasePlan,
): void {
  const { sessionId } = target;
  agent.sql`DELETE FROM assistant_compactions WHERE session_id = ${sessionId}
    AND id IN (SELECT value FROM json_each(${JSON.stringify(plan.overlayIds)}))`;
  agent.sql`DELETE FROM assistant_config WHERE session_id = ${sessionId}
    AND key IN (SELECT value FROM json_each(${JSON.stringify(plan.configKeys)}))`;
  if (target.messageIds !== null) {
    const calls = new Set(plan.toolCallIds);
    const entries = agent.sql<HistoryRow>`
      SELECT label, version, content, previous_content, tool_call_id FROM arbor_block_history
      WHERE session_id = ${sessionId} ORDER BY label, version`;
    for (const fix of relinkHistory(entries.map(historyEntry), (entry) =>
      calls.has(entry.toolCallId ?? ""),
    )) {
      agent.sql`UPDATE arbor_block_history SET previous_content = ${fix.previousContent}
        WHERE session_id = ${sessionId} AND label = ${fix.label} AND version = ${fix.version}`;
    }
    agent.sql`DELETE FROM arbor_block_history WHERE session_id = ${sessionId}
      AND tool_call_id IN (SELECT value FROM json_each(${JSON.stringify(plan.toolCallIds)}))`;
    // The tree repair of a delete: children move up, attachments and the change are recorded.
    deleteMessageRows(
      agent,
      sessionId,
      plan.messages.map((m) => m.id),
    );
    return;
  }
  agent.sql`DELETE FROM assistant_messages WHERE session_id = ${sessionId}`;
  releaseAttachments(agent, sessionId, null);
  agent.sql`DELETE FROM assistant_compactions WHERE session_id = ${sessionId}`;
  agent.sql`DELETE FROM arbor_block_history WHERE session_id = ${sessionId}`;
  agent.sql`DELETE FROM arbor_changes WHERE session_id = ${sessionId}`;
  agent.sql`DELETE FROM cf_agents_context_blocks
    WHERE label IN (SELECT value FROM json_each(${JSON.stringify(target.contextKeys)}))`;
  agent.sql`DELETE FROM assistant_sessions WHERE id = ${sessionId}`;
}

/**
 * Runs FTS5 deletes with `secure-delete` on (SQLite 3.42+). Schema v7 turned it on for good; it
 * is set again (a no-op then) for an index rebuilt since. Set once more afterwards: a config
 * write flushes the deletes FTS5 holds in memory, so they reach the segments inside this
 * transaction (a Durable Object commits at the end of the request). On an older SQLite, merges
 * the index once (`optimize`) afterwards, which drops deleted entries as well.
 */
function withSecureDelete(agent: SqlProvider, work: () => void): void {
  let secure = true;
  try {
    agent.sql`INSERT INTO assistant_fts (assistant_fts, rank) VALUES ('secure-delete', 1)`;
  } catch {
    secure = false;
  }
  work();
  if (secure)
    agent.sql`INSERT INTO assistant_fts (assistant_fts, rank) VALUES ('secure-delete', 1)`;
  else agent.sql`INSERT INTO assistant_fts (assistant_fts) VALUES ('optimize')`;
}
