import {
  zeroCounts,
  type StoreEraseResult,
  type StoreEraseTarget,
} from "../../session/contracts/erase.js";
import {
  configMentions,
  historyEntry,
  overlaysCovering,
  relinkHistory,
  toolCallIdsOf,
  type HistoryRow,
} from "../../session/erase/erase-rules.js";
import { ArborError } from "../../session/errors/index.js";
import type { PostgresClient, PostgresQueryable } from "./postgres-client.js";
import { readCompactions } from "./postgres-compactions.js";
import { postgresExecutor } from "./postgres-executor.js";
import { SESSION_LOCK_SQL } from "./postgres-locking.js";
import { loadAncestorLinks } from "./postgres-path.js";
import { postgresSettings } from "./postgres-settings.js";
import { TEXT_ARRAY_SQL, toCount } from "./postgres-sql.js";
import { erasePostgresStreams } from "./postgres-streams.js";
import { deleteWithRepair } from "./postgres-tree-repair.js";

/**
 * Erase on PostgreSQL (docs/behavior/erase-and-retention.md): one target in one transaction that
 * first takes the session's advisory lock, the lock every writer of the session takes, so no
 * write of another process interleaves. The search text lives in the message row and goes with
 * it; attachment references and attachments left without any go by the schema's triggers.
 * Needs transactions: an `execute`-style connection gets `NOT_SUPPORTED` (a dry run only reads
 * and works on every connection). `pending`: as in `eraseSqlTarget`.
 */
export async function erasePostgresTarget(
  client: PostgresClient,
  target: StoreEraseTarget,
  dryRun: boolean,
  pending: Map<string, number> = new Map(),
): Promise<StoreEraseResult> {
  const executor = postgresExecutor(client);
  await postgresSettings(executor);
  if (dryRun) return (await planErase(executor, target, pending)).result;
  if (!executor.supportsTransactions) {
    throw new ArborError(
      "NOT_SUPPORTED",
      "[arbor] [postgres] erase() and prune() need transactions: pass a pg Pool or Client, or a postgres.js sql, not an execute-style connection",
    );
  }
  return executor.transaction(async (tx) => {
    await tx.query(`SELECT ${SESSION_LOCK_SQL}`, [target.sessionId]);
    const plan = await planErase(tx, target, pending);
    await applyErase(tx, target, plan);
    return plan.result;
  });
}

// --- Internal helpers ---

interface ErasePlan {
  result: StoreEraseResult;
  toolCallIds: string[];
  configKeys: string[];
}

async function planErase(
  db: PostgresQueryable,
  target: StoreEraseTarget,
  pending: Map<string, number>,
): Promise<ErasePlan> {
  const { sessionId } = target;
  const whole = target.messageIds === null;
  const ids = JSON.stringify(target.messageIds ?? []);
  const messages = await db.query<{ id: string; content: string }>(
    `SELECT id, ${whole ? "''" : "content"} AS content FROM assistant_messages
    WHERE session_id = ? AND (?::boolean OR id = ANY(${TEXT_ARRAY_SQL})) ORDER BY seq`,
    [sessionId, whole, ids],
  );
  const doomed = new Set(messages.map((m) => m.id));
  const overlays = await readCompactions(db, sessionId);
  const ranges = new Map<string, string[] | null>();
  if (!whole) {
    for (const overlay of overlays) {
      const links = await loadAncestorLinks(
        db,
        sessionId,
        overlay.toMessageId,
        overlay.fromMessageId,
      );
      ranges.set(
        overlay.id,
        links.some((link) => link.id === overlay.fromMessageId)
          ? links.map((link) => link.id)
          : null,
      );
    }
  }
  const dropped = whole
    ? overlays
    : overlaysCovering(overlays, doomed, (o) => ranges.get(o.id) ?? null);
  const toolCallIds = messages.flatMap((m) => toolCallIdsOf(m.content));
  const configKeys = (
    await db.query<{ key: string; value: string }>(
      "SELECT key, value FROM assistant_config WHERE session_id = ?",
      [sessionId],
    )
  )
    .filter((row) => whole || configMentions(row.key, row.value, doomed))
    .map((row) => row.key);
  const count = async (sql: string, params: unknown[]) =>
    toCount((await db.query<{ n: unknown }>(sql, params))[0]?.n);
  const counts = zeroCounts();
  counts.messages = messages.length;
  counts.overlays = dropped.length;
  counts.configRows = configKeys.length;
  counts.blockVersions = await count(
    `SELECT count(*) AS n FROM arbor_block_history
    WHERE session_id = ? AND (?::boolean OR tool_call_id = ANY(${TEXT_ARRAY_SQL}))`,
    [sessionId, whole, JSON.stringify(toolCallIds)],
  );
  if (whole) {
    counts.sessions = await count(
      "SELECT count(*) AS n FROM assistant_sessions WHERE id = ?",
      [sessionId],
    );
    counts.changeLogRows = await count(
      "SELECT count(*) AS n FROM arbor_changes WHERE session_id = ?",
      [sessionId],
    );
    counts.contextRows = await count(
      `SELECT count(*) AS n FROM cf_agents_context_blocks WHERE label = ANY(${TEXT_ARRAY_SQL})`,
      [JSON.stringify(target.contextKeys)],
    );
  }
  const references = await db.query<{ hash: string; total: unknown }>(
    `SELECT r.hash, (SELECT count(*) FROM arbor_attachment_refs AS a WHERE a.hash = r.hash) AS total
    FROM arbor_attachment_refs AS r
    WHERE r.session_id = ? AND (?::boolean OR r.message_id = ANY(${TEXT_ARRAY_SQL}))`,
    [sessionId, whole, ids],
  );
  for (const { hash, total } of references) {
    const released = (pending.get(hash) ?? 0) + 1;
    pending.set(hash, released);
    if (released === toCount(total)) counts.attachments++;
  }
  return {
    result: {
      counts,
      messageIds: [...doomed],
      overlayIds: dropped.map((overlay) => overlay.id),
    },
    toolCallIds,
    configKeys,
  };
}

async function applyErase(
  db: PostgresQueryable,
  target: StoreEraseTarget,
  plan: ErasePlan,
): Promise<void> {
  const { sessionId } = target;
  await erasePostgresStreams(db, sessionId);
  const { overlayIds, messageIds } = plan.result;
  await db.query(
    `DELETE FROM assistant_compactions WHERE session_id = ? AND id = ANY(${TEXT_ARRAY_SQL})`,
    [sessionId, JSON.stringify(overlayIds)],
  );
  await db.query(
    `DELETE FROM assistant_config WHERE session_id = ? AND key = ANY(${TEXT_ARRAY_SQL})`,
    [sessionId, JSON.stringify(plan.configKeys)],
  );
  if (target.messageIds !== null) {
    const calls = new Set(plan.toolCallIds);
    const entries = await db.query<HistoryRow>(
      `SELECT label, version, content, previous_content, tool_call_id FROM arbor_block_history
      WHERE session_id = ? ORDER BY label, version`,
      [sessionId],
    );
    for (const fix of relinkHistory(entries.map(historyEntry), (entry) =>
      calls.has(entry.toolCallId ?? ""),
    )) {
      await db.query(
        `UPDATE arbor_block_history SET previous_content = ?
        WHERE session_id = ? AND label = ? AND version = ?`,
        [fix.previousContent, sessionId, fix.label, fix.version],
      );
    }
    await db.query(
      `DELETE FROM arbor_block_history WHERE session_id = ? AND tool_call_id = ANY(${TEXT_ARRAY_SQL})`,
      [sessionId, JSON.stringify(plan.toolCallIds)],
    );
    // The tree repair of a delete, inside this locked transaction (no fingerprint to check).
    await deleteWithRepair(db, sessionId, messageIds, null);
    return;
  }
  for (const sql of [
    "DELETE FROM assistant_messages WHERE session_id = ?",
    "DELETE FROM assistant_compactions WHERE session_id = ?",
    "DELETE FROM arbor_block_history WHERE session_id = ?",
    "DELETE FROM arbor_changes WHERE session_id = ?",
    "DELETE FROM assistant_sessions WHERE id = ?",
  ])
    await db.query(sql, [sessionId]);
  await db.query(
    `DELETE FROM cf_agents_context_blocks WHERE label = ANY(${TEXT_ARRAY_SQL})`,
    [JSON.stringify(target.contextKeys)],
  );
}
