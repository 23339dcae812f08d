import type {
  ChangeListener,
  ChangeType,
  ChangeWatchScope,
  Unsubscribe,
} from "../../session/contracts/changes.js";
import type { SqlProvider } from "../../session/contracts/sql-provider.js";
import {
  CHANGE_LOG_RETENTION,
  ChangeFeed,
  changeFromRow,
  parseSeqPosition,
  resetEvent,
} from "../../session/core/change-feed.js";
import { nowIso } from "./sql-transaction.js";

export { CHANGE_LOG_RETENTION };

/** How often watchers check `PRAGMA data_version` for commits by other connections. */
export const CHANGE_POLL_INTERVAL_MS = 150;

/** Creates the change log (migration step v4 of sql-schema.ts). */
export function createChangeLogTable(agent: SqlProvider): void {
  agent.sql`CREATE TABLE IF NOT EXISTS arbor_changes (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL,
    type TEXT NOT NULL,
    ids TEXT NOT NULL,
    at TEXT NOT NULL
  )`;
}

/**
 * Records one change. Call it inside the write's own transaction, so a failed write records
 * nothing; AUTOINCREMENT under SQLite's single writer makes `seq` the commit order.
 * Every `TRIM_EVERY`-th row also trims the log to `CHANGE_LOG_RETENTION` rows and records the
 * highest `seq` trimmed (`arbor_meta`), below which a resumed watch gets a `reset`.
 */
export function recordChange(
  agent: SqlProvider,
  sessionId: string,
  type: ChangeType,
  ids: readonly string[],
): void {
  const [row] = agent.sql<{ seq: number }>`
    INSERT INTO arbor_changes (session_id, type, ids, at)
    VALUES (${sessionId}, ${type}, ${JSON.stringify(ids)}, ${nowIso()})
    RETURNING seq`;
  if (row && row.seq % TRIM_EVERY === 0) {
    const horizon = row.seq - CHANGE_LOG_RETENTION;
    if (horizon > 0) {
      agent.sql`DELETE FROM arbor_changes WHERE seq <= ${horizon}`;
      agent.sql`INSERT INTO arbor_meta (key, value) VALUES (${TRIMMED_KEY}, ${String(horizon)})
        ON CONFLICT (key) DO UPDATE SET value = excluded.value`;
    }
  }
  // This process's watchers read on a microtask, after the synchronous transaction has
  // committed (or rolled back, and then they find nothing): no wait for the next poll.
  hubs.get(agent)?.wake();
}

/** Watches one session or every session (`scope.sessionId`) of the store behind `agent`. */
export function watchSqlChanges(
  agent: SqlProvider,
  scope: ChangeWatchScope,
  listener: ChangeListener,
): Unsubscribe {
  let hub = hubs.get(agent);
  if (!hub) {
    hub = new ChangeHub(agent);
    hubs.set(agent, hub);
  }
  return hub.add(listener, scope);
}

// --- Internal helpers ---

const TRIM_EVERY = 1000;
/** The `arbor_meta` key of the highest `seq` trimmed from the change log. */
const TRIMMED_KEY = "change_log_trimmed_seq";
const READ_BATCH = 1000;
const hubs = new WeakMap<SqlProvider, ChangeHub>();

/**
 * One reader of the change log per store object: it remembers the last `seq` it published and
 * reads newer rows after this process's own writes (`wake`) and when `PRAGMA data_version` says
 * another connection committed. SQLite has one writer at a time and `seq` is drawn inside the
 * write, so `seq` order is commit order and a `seq` is a complete position: a resumed watch
 * reads the rows after it up to the reader's own, synchronously, before the next live row. Where that pragma is unavailable (Durable Objects, where one
 * isolate owns the store) only `wake` runs, which is all such a store needs.
 */
class ChangeHub {
  readonly #feed = new ChangeFeed();
  #cursor = 0;
  #dataVersion: number | null = null;
  #timer: ReturnType<typeof setInterval> | undefined;
  #wakePending = false;

  constructor(readonly agent: SqlProvider) {}

  add(listener: ChangeListener, scope: ChangeWatchScope): Unsubscribe {
    const { sessionId } = scope;
    const after =
      scope.after === undefined ? undefined : parseSeqPosition(scope.after);
    if (this.#feed.size === 0) this.#start();
    else this.#read();
    scope.onStart?.(String(after ?? this.#cursor));
    if (after === undefined)
      return this.#feed.add(listener, sessionId, () => this.#stop());
    const watch = this.#feed.addHeld(listener, sessionId, () => this.#stop());
    try {
      watch.resume(this.#missed(sessionId, after));
    } catch (error) {
      watch.stop();
      throw error;
    }
    return watch.stop;
  }

  /** What a watch resuming after `after` missed, up to the reader's cursor; or one `reset`. */
  #missed(sessionId: string | null, after: number) {
    const [meta] = this.agent.sql<{ value: string }>`
      SELECT value FROM arbor_meta WHERE key = ${TRIMMED_KEY}`;
    const trimmed = Number(meta?.value ?? 0);
    // Older than the log keeps, or a position this store never gave (another database file).
    if (after < trimmed || after > this.#cursor)
      return [resetEvent(sessionId, this.#cursor, String(this.#cursor))];
    const rows =
      sessionId === null
        ? this.agent
            .sql<ChangeRow>`SELECT seq, session_id, type, ids, at FROM arbor_changes
            WHERE seq > ${after} AND seq <= ${this.#cursor} ORDER BY seq`
        : this.agent
            .sql<ChangeRow>`SELECT seq, session_id, type, ids, at FROM arbor_changes
            WHERE seq > ${after} AND seq <= ${this.#cursor} AND session_id = ${sessionId}
            ORDER BY seq`;
    return rows.map((row) => changeFromRow(row));
  }

  wake(): void {
    if (this.#wakePending || this.#feed.size === 0) return;
    this.#wakePending = true;
    queueMicrotask(() => {
      this.#wakePending = false;
      if (this.#feed.size > 0) this.#safeRead();
    });
  }

  #start(): void {
    const [row] = this.agent.sql<{ seq: number | null }>`
      SELECT MAX(seq) AS seq FROM arbor_changes`;
    this.#cursor = row?.seq ?? 0;
    this.#dataVersion = readDataVersion(this.agent);
    if (this.#dataVersion === null || typeof setInterval !== "function") return;
    this.#timer = setInterval(() => this.#poll(), CHANGE_POLL_INTERVAL_MS);
    // Never keeps a Node process alive on its own.
    (this.#timer as { unref?: () => void }).unref?.();
  }

  #stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #poll(): void {
    const version = readDataVersion(this.agent);
    // `null`: the database was closed; the next unsubscribe stops the timer.
    if (version === null || version === this.#dataVersion) return;
    this.#dataVersion = version;
    this.#safeRead();
  }

  #safeRead(): void {
    try {
      this.#read();
    } catch (error) {
      console.warn("[arbor] [sqlite] Could not read the change log:", error);
    }
  }

  #read(): void {
    for (;;) {
      const rows = this.agent
        .sql<ChangeRow>`SELECT seq, session_id, type, ids, at FROM arbor_changes
        WHERE seq > ${this.#cursor} ORDER BY seq LIMIT ${READ_BATCH}`;
      for (const row of rows) {
        this.#cursor = row.seq;
        this.#feed.publish(changeFromRow(row));
      }
      if (rows.length < READ_BATCH) return;
    }
  }
}

interface ChangeRow {
  seq: number;
  session_id: string;
  type: string;
  ids: string;
  at: string;
}

/** `PRAGMA data_version` (changes when another connection commits), or `null` where it is not allowed. */
function readDataVersion(agent: SqlProvider): number | null {
  try {
    const [row] = agent.sql<{ data_version: number }>`PRAGMA data_version`;
    return typeof row?.data_version === "number" ? row.data_version : null;
  } catch {
    return null;
  }
}

/** Records a `delete` of those of `ids` that exist in the session (nothing when none does). */
export function recordDeletion(
  agent: SqlProvider,
  sessionId: string,
  ids: readonly string[],
): void {
  const existing = agent.sql<{ id: string }>`
    SELECT id FROM assistant_messages WHERE session_id = ${sessionId}
      AND id IN (SELECT value FROM json_each(${JSON.stringify(ids)}))
    ORDER BY +seq`.map((row) => row.id);
  if (existing.length > 0) recordChange(agent, sessionId, "delete", existing);
}
