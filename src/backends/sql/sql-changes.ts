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
} from "../../session/state/change-feed.js";
import { nowIso } from "../../session/state/now-iso.js";
import { StoreSlot, storeRuntime } from "../../session/state/store-runtime.js";

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
 * v10 of sql-schema.ts: the change log without `AUTOINCREMENT` (rows are only ever trimmed from
 * the old end, so `max(seq) + 1` is already the commit order), an append notice written by a
 * trigger in the same statement as the message row, so `appendMessage` is one statement and needs
 * no transaction of its own, and the trimming in a trigger too. Batch writes pause the append
 * trigger (`withoutAppendNotices`) and record one notice for the batch. Existing rows and their
 * `seq`s are kept, so a watcher's cursor stays valid.
 */
export function rebuildChangeLog(agent: SqlProvider): void {
  // The trigger names the table, and a rename re-checks every trigger: drop it first.
  agent.sql`DROP TRIGGER IF EXISTS arbor_changes_on_append`;
  agent.sql`DROP TABLE IF EXISTS arbor_changes_v10`;
  agent.sql`CREATE TABLE arbor_changes_v10 (
    seq INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    type TEXT NOT NULL,
    ids TEXT NOT NULL,
    at TEXT NOT NULL
  )`;
  agent.sql`INSERT INTO arbor_changes_v10 (seq, session_id, type, ids, at)
    SELECT seq, session_id, type, ids, at FROM arbor_changes`;
  agent.sql`DROP TABLE arbor_changes`;
  agent.sql`ALTER TABLE arbor_changes_v10 RENAME TO arbor_changes`;
  agent.sql`CREATE TABLE IF NOT EXISTS arbor_append_notices_paused (id INTEGER PRIMARY KEY)`;
  agent.sql`CREATE TRIGGER arbor_changes_on_append AFTER INSERT ON assistant_messages
    WHEN NOT EXISTS (SELECT 1 FROM arbor_append_notices_paused)
    BEGIN
      INSERT INTO arbor_changes (session_id, type, ids, at)
      VALUES (NEW.session_id, 'append', json_array(NEW.id), NEW.created_at);
    END`;
  // Trims to CHANGE_LOG_RETENTION rows every 1,000 rows, and records the highest seq trimmed
  // (TRIMMED_KEY), below which a resumed watch gets a `reset` instead of a silent gap.
  agent.sql`CREATE TRIGGER arbor_changes_trim AFTER INSERT ON arbor_changes
    WHEN NEW.seq % 1000 = 0 AND NEW.seq > 10000
    BEGIN
      DELETE FROM arbor_changes WHERE seq <= NEW.seq - 10000;
      INSERT OR REPLACE INTO arbor_meta (key, value)
        VALUES ('change_log_trimmed_seq', CAST(NEW.seq - 10000 AS TEXT));
    END`;
}

/**
 * Records one change. Call it inside the write's own transaction, so a failed write records
 * nothing; under SQLite's single writer `seq` is the commit order, and a trigger trims the log to
 * `CHANGE_LOG_RETENTION` rows and records the highest `seq` trimmed (`arbor_meta`), below which a
 * resumed watch gets a `reset`. A single message insert needs no call: its trigger records it.
 */
export function recordChange(
  agent: SqlProvider,
  sessionId: string,
  type: ChangeType,
  ids: readonly string[],
): void {
  agent.sql`INSERT INTO arbor_changes (session_id, type, ids, at)
    VALUES (${sessionId}, ${type}, ${JSON.stringify(ids)}, ${nowIso()})`;
  noteChange(agent);
}

/**
 * After a committed change this process wrote: its watchers read on a microtask, after the
 * synchronous transaction has committed (or rolled back, and then they find nothing), with no
 * wait for the next poll.
 */
export function noteChange(agent: SqlProvider): void {
  storeRuntime(agent).find(CHANGE_HUB)?.wake();
}

/**
 * Runs `work`, which inserts message rows, with the append trigger paused, so a batch or an
 * import records one notice of its own instead of one per row. Call it inside the caller's
 * transaction: the pause is a row that commits with nothing (it is gone before the commit).
 */
export function withoutAppendNotices<T>(agent: SqlProvider, work: () => T): T {
  agent.sql`INSERT OR IGNORE INTO arbor_append_notices_paused (id) VALUES (1)`;
  try {
    return work();
  } finally {
    agent.sql`DELETE FROM arbor_append_notices_paused`;
  }
}

/** Watches one session or every session (`scope.sessionId`) of the store behind `agent`. */
export function watchSqlChanges(
  agent: SqlProvider,
  scope: ChangeWatchScope,
  listener: ChangeListener,
): Unsubscribe {
  const hub = storeRuntime(agent).own(CHANGE_HUB, () => new ChangeHub(agent));
  return hub.add(listener, scope);
}

// --- Internal helpers ---

/** The `arbor_meta` key of the highest `seq` trimmed (written by the `arbor_changes_trim` trigger). */
const TRIMMED_KEY = "change_log_trimmed_seq";
const READ_BATCH = 1000;
/** The store's one change-log reader, shared by its backend and every provider over it. */
const CHANGE_HUB = new StoreSlot<ChangeHub>("sql change hub");

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
