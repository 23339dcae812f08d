import type { ChangeEvent } from "../../session/contracts/changes.js";
import type { ChangeFeed } from "../../session/state/change-feed.js";
import { changeFromRow, resetEvent } from "../../session/state/change-feed.js";
import type { PostgresExecutor } from "./postgres-client.js";
import {
  CHANGE_CHANNEL,
  CHANGE_POLL_INTERVAL_MS,
  CHANGE_SAFETY_POLL_MS,
  TRIMMED_SEQ_KEY,
  TRIMMED_XID_KEY,
} from "./postgres-change-log.js";
import {
  cursorAfter,
  parseSnapshot,
  type PostgresPosition,
  type Snapshot,
} from "./postgres-change-position.js";
import { isoSql } from "./postgres-sql.js";

/** How long the reader waits before its first attempt to listen again, doubling up to the cap. */
export const RELISTEN_FIRST_MS = 50;
export const RELISTEN_MAX_MS = 5_000;

/**
 * The reader of the change log behind one client's watchers (`postgres-changes.ts`), loaded
 * with the other queries. It reads new rows when a notification arrives (a pg Pool lends it one
 * connection for LISTEN, a pg Client listens on itself, postgres.js on its own listen
 * connection), on a slow timer besides, or on a faster timer for `execute`-style connections.
 * Reads are serialized, and a notification during a read triggers one more.
 *
 * Its position is a snapshot (`postgres-change-position.ts`): each read takes a new one in the
 * same statement that returns the rows the previous one did not see, so rows that commit out of
 * `seq` order are delivered once, when they become visible, and nothing waits for a slower
 * writer. Each event carries the cursor after it, and its transaction id as the feed's token,
 * which a resumed watcher uses to drop live events its catch-up already delivered.
 *
 * The LISTEN connection is the reader's own: when it breaks (the server restarted, or an
 * administrator terminated it, 57P01) the reader logs once, listens again with backoff, and
 * reads the log, which holds everything committed meanwhile. A failing read is logged once per
 * outage. Nothing of this reaches the process as an unhandled error.
 */
export class ChangeReader {
  #snapshot: string | null = null;
  #reading: Promise<void> | null = null;
  #again = false;
  #stopListening: (() => Promise<void>) | null = null;
  #timer: ReturnType<typeof setInterval> | undefined;
  #relisten: ReturnType<typeof setTimeout> | undefined;
  #relistenDelay = RELISTEN_FIRST_MS;
  #starting: Promise<void> | undefined;
  #generation = 0;
  #failing = false;
  #lost = false;

  constructor(
    readonly executor: PostgresExecutor,
    readonly feed: ChangeFeed<bigint>,
  ) {}

  /** The snapshot every row not yet published is invisible in: where a new watcher starts. */
  get position(): string | null {
    return this.#snapshot;
  }

  /** Listens and reads the starting point; stops again when the feed emptied meanwhile. */
  start(): Promise<void> {
    this.#starting = this.#start();
    return this.#starting;
  }

  async #start(): Promise<void> {
    const generation = ++this.#generation;
    const previous = this.#stopListening;
    this.#stopListening = null;
    await previous?.().catch(() => undefined);
    this.#startTimer();
    try {
      const [row] = await this.executor.query<{ snap: string }>(
        "SELECT txid_current_snapshot()::text AS snap",
      );
      // A start that a stop and a newer start overtook must not move the position: its
      // snapshot, older or newer than the current one, would deliver rows twice or skip them.
      if (generation !== this.#generation) return;
      this.#snapshot = row?.snap ?? null;
      this.#failing = false;
    } catch (error) {
      // The timer retries the read; the snapshot is taken by the first read that succeeds.
      this.#warnRead(error);
    }
    await this.#listen(generation);
    if (this.feed.size === 0) this.stop();
  }

  stop(): void {
    this.#generation++;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    if (this.#relisten !== undefined) clearTimeout(this.#relisten);
    this.#relisten = undefined;
    const stop = this.#stopListening;
    this.#stopListening = null;
    void stop?.().catch(() => undefined);
  }

  /**
   * What a watch resuming after `position` missed (oldest first, each with the cursor after it),
   * and the snapshot the catch-up saw: live events whose transaction it saw are covered. A
   * position the log no longer reaches gives one `reset` at the snapshot instead.
   */
  async catchUp(
    sessionId: string | null,
    position: PostgresPosition,
  ): Promise<{ events: ChangeEvent[]; snapshot: Snapshot }> {
    const params: string[] = [];
    const where: string[] = [];
    let covered = "false";
    const coveredParams: string[] = [];
    if (sessionId !== null) {
      where.push("c.session_id = ?::text");
      params.push(sessionId);
    }
    if (position.seq !== undefined) {
      where.push("c.seq > ?::bigint");
      params.push(position.seq.toString());
    } else if (position.base) {
      where.push(
        "c.xid >= txid_snapshot_xmin(?::text::txid_snapshot)",
        "NOT txid_visible_in_snapshot(c.xid, ?::text::txid_snapshot)",
      );
      params.push(position.base.text, position.base.text);
      if (position.partial) {
        const { snapshot, upTo } = position.partial;
        where.push(
          "NOT (txid_visible_in_snapshot(c.xid, ?::text::txid_snapshot) AND c.seq <= ?::bigint)",
        );
        params.push(snapshot.text, upTo.toString());
        covered = "txid_visible_in_snapshot(c.xid, ?::text::txid_snapshot)";
        coveredParams.push(snapshot.text);
      }
    }
    // One statement: the rows, the trimmed horizon and the snapshot they were read in agree.
    // (`covered` comes first in the text, so its parameter does too.)
    const rows = await this.executor.query<CatchUpRow>(
      `SELECT s.snap::text AS snap, h.trimmed_seq, h.trimmed_xid, h.high,
        c.seq::text AS seq, c.xid::text AS xid, c.session_id, c.type, c.ids::text AS ids,
        ${isoSql("c.at")} AS at, COALESCE(${covered}, false) AS covered
      FROM (SELECT txid_current_snapshot() AS snap) AS s
      CROSS JOIN (SELECT
        (SELECT value FROM arbor_meta WHERE key = '${TRIMMED_SEQ_KEY}') AS trimmed_seq,
        (SELECT value FROM arbor_meta WHERE key = '${TRIMMED_XID_KEY}') AS trimmed_xid,
        COALESCE(pg_sequence_last_value(
          pg_get_serial_sequence('arbor_changes', 'seq')::regclass), 0)::text AS high) AS h
      LEFT JOIN arbor_changes AS c ON ${[...where, COMMITTED_NOW].join(" AND ")}
      ORDER BY 11 DESC, c.seq`,
      [...coveredParams, ...params],
    );
    const first = rows[0]!;
    const snapshot = parseSnapshot(first.snap);
    const trimmedSeq = BigInt(first.trimmed_seq ?? "0");
    const trimmedXid = BigInt(first.trimmed_xid ?? "0");
    // Stale: older than the log keeps, or from the future (a position of another cluster, such
    // as one from before a dump was restored elsewhere, names transactions this one never ran).
    const stale =
      position.seq !== undefined
        ? position.seq < trimmedSeq || position.seq > BigInt(first.high)
        : (trimmedXid > 0n && trimmedXid >= position.base!.xmin) ||
          position.base!.xmax > snapshot.xmax ||
          (position.partial?.snapshot.xmax ?? 0n) > snapshot.xmax;
    if (stale) {
      return {
        events: [
          resetEvent(
            sessionId,
            await this.#headSeq(sessionId, trimmedSeq),
            snapshot.text,
          ),
        ],
        snapshot,
      };
    }
    const found = rows.filter((row) => row.seq !== null);
    const events: ChangeEvent[] = [];
    // Rows of the partial read the position stopped inside come first, continuing its cursors.
    const continued = found.filter((row) => row.covered);
    const newer = found.filter((row) => !row.covered);
    continued.forEach((row, index) =>
      events.push(
        changeFromRow(
          row as ChangeRow,
          cursorAfter(
            position.base!.text,
            position.partial!.snapshot.text,
            row.seq!,
            index === continued.length - 1,
          ),
        ),
      ),
    );
    const from = position.partial?.snapshot.text ?? position.base?.text;
    newer.forEach((row, index) => {
      const last = index === newer.length - 1;
      events.push(
        changeFromRow(
          row as ChangeRow,
          from === undefined
            ? cursorFromSeqRead(row.seq!, snapshot.text, last)
            : cursorAfter(from, snapshot.text, row.seq!, last),
        ),
      );
    });
    return { events, snapshot };
  }

  /** The `seq` a `reset` carries: the session's (or store's) newest committed change. */
  async #headSeq(sessionId: string | null, trimmed: bigint): Promise<number> {
    const [row] = await this.executor.query<{ seq: string | null }>(
      sessionId === null
        ? "SELECT MAX(seq)::text AS seq FROM arbor_changes"
        : "SELECT MAX(seq)::text AS seq FROM arbor_changes WHERE session_id = ?::text",
      sessionId === null ? [] : [sessionId],
    );
    const head = BigInt(row?.seq ?? "0");
    return Number(head > trimmed ? head : trimmed);
  }

  #startTimer(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    // Announcements can be lost (a writer that dies between its commit and its announcement, a
    // LISTEN connection being replaced): a slow poll bounds the delay. An execute-style
    // connection cannot LISTEN at all and polls faster.
    const every =
      this.executor.kind === "execute"
        ? CHANGE_POLL_INTERVAL_MS
        : CHANGE_SAFETY_POLL_MS;
    this.#timer = setInterval(() => this.#wake(), every);
    (this.#timer as { unref?: () => void }).unref?.();
  }

  /** Listens on the reader's connection; on failure, or when it breaks later, tries again. */
  async #listen(generation: number): Promise<void> {
    try {
      const stop = await this.#subscribe(() =>
        this.#connectionLost(generation),
      );
      if (generation !== this.#generation) {
        await stop().catch(() => undefined);
        return;
      }
      this.#stopListening = stop;
      this.#relistenDelay = RELISTEN_FIRST_MS;
      if (this.#lost) {
        this.#lost = false;
        console.warn("[arbor] [postgres] The change feed is listening again.");
        // Everything committed while nobody listened is in the log.
        this.#wake();
      }
    } catch (error) {
      if (generation !== this.#generation) return;
      if (!this.#lost) {
        this.#lost = true;
        console.warn(
          "[arbor] [postgres] The change feed could not LISTEN; retrying with backoff:",
          messageOf(error),
        );
      }
      this.#scheduleRelisten(generation);
    }
  }

  #connectionLost(generation: number): void {
    if (generation !== this.#generation || this.#relisten !== undefined) return;
    // Lost while LISTEN was still being sent: `#listen` retries when that fails.
    if (this.#stopListening === null) return;
    const stop = this.#stopListening;
    this.#stopListening = null;
    void stop?.().catch(() => undefined);
    if (!this.#lost) {
      this.#lost = true;
      console.warn(
        "[arbor] [postgres] The change feed's LISTEN connection was lost; listening again with backoff.",
      );
    }
    this.#scheduleRelisten(generation);
  }

  #scheduleRelisten(generation: number): void {
    if (this.#relisten !== undefined) return;
    const delay = this.#relistenDelay;
    this.#relistenDelay = Math.min(this.#relistenDelay * 2, RELISTEN_MAX_MS);
    this.#relisten = setTimeout(
      () => {
        this.#relisten = undefined;
        if (generation === this.#generation) void this.#listen(generation);
      },
      delay * (0.75 + Math.random() * 0.5),
    );
    (this.#relisten as { unref?: () => void }).unref?.();
  }

  /** Starts listening; `onLost` runs when the connection breaks. Returns what stops it. */
  async #subscribe(onLost: () => void): Promise<() => Promise<void>> {
    const onNotify = () => this.#wake();
    const client = this.executor.client as unknown;
    if (this.executor.kind === "pool") {
      const connection = await (client as PoolLike).connect();
      let broken = false;
      // A checked-out pg client emits `error` itself (the pool only covers idle ones): without
      // this handler, a terminated backend (57P01) would be an unhandled error event.
      const onError = () => {
        broken = true;
        onLost();
      };
      connection.on("error", onError);
      connection.on("end", onError);
      connection.on("notification", onNotify);
      const detach = () => {
        connection.removeListener("notification", onNotify);
        connection.removeListener("end", onError);
        // Keeps swallowing errors of a connection on its way out.
        connection.removeListener("error", onError);
        connection.on("error", ignore);
      };
      try {
        await connection.query(`LISTEN ${CHANGE_CHANNEL}`);
      } catch (error) {
        detach();
        connection.release(error as Error);
        throw error;
      }
      return async () => {
        detach();
        if (broken) {
          connection.release(new Error("LISTEN connection lost"));
          return;
        }
        try {
          await connection.query(`UNLISTEN ${CHANGE_CHANNEL}`);
          connection.release();
        } catch (error) {
          connection.release(error as Error);
        }
      };
    }
    if (this.executor.kind === "client") {
      // The caller's own connection: it is theirs to reconnect; the timer keeps reading.
      const source = client as NotificationSource;
      source.on("notification", onNotify);
      await this.executor.query(`LISTEN ${CHANGE_CHANNEL}`);
      return async () => {
        source.removeListener("notification", onNotify);
        await this.executor.query(`UNLISTEN ${CHANGE_CHANNEL}`);
      };
    }
    if (typeof (client as Partial<PostgresJsListen>).listen === "function") {
      // postgres.js reconnects its listen connection by itself and calls `onlisten` each time
      // it listens again: then the log is read for what was committed in between.
      let first = true;
      const subscription = await (client as PostgresJsListen).listen(
        CHANGE_CHANNEL,
        onNotify,
        () => {
          if (first) first = false;
          else onNotify();
        },
      );
      return () => subscription.unlisten();
    }
    // An execute-style connection holds no session to LISTEN on: the timer polls the log.
    return async () => undefined;
  }

  #wake(): void {
    if (this.#reading) {
      this.#again = true;
      return;
    }
    this.#reading = this.#readAll().finally(() => {
      this.#reading = null;
      if (this.#again) {
        this.#again = false;
        this.#wake();
      }
    });
  }

  /** Reads the rows the last snapshot did not see, in one statement with the next snapshot. */
  async #readAll(): Promise<void> {
    try {
      await this.#starting;
      if (this.feed.size === 0) return;
      // A read that a stop and a new start overtake publishes nothing: the new start took its own
      // position, which this read's rows may fall on either side of.
      const generation = this.#generation;
      const base = this.#snapshot;
      if (base === null) {
        const [row] = await this.executor.query<{ snap: string }>(
          "SELECT txid_current_snapshot()::text AS snap",
        );
        if (generation !== this.#generation) return;
        this.#snapshot = row?.snap ?? null;
        this.#recovered();
        return;
      }
      const rows = await this.executor.query<ReadRow>(
        `SELECT s.snap::text AS snap, c.seq::text AS seq, c.xid::text AS xid, c.session_id,
          c.type, c.ids::text AS ids, ${isoSql("c.at")} AS at
        FROM (SELECT txid_current_snapshot() AS snap) AS s
        LEFT JOIN arbor_changes AS c
          ON c.xid >= txid_snapshot_xmin(?::text::txid_snapshot)
          AND NOT txid_visible_in_snapshot(c.xid, ?::text::txid_snapshot)
          AND ${COMMITTED_NOW}
        ORDER BY c.seq`,
        [base, base],
      );
      this.#recovered();
      const next = rows[0]?.snap;
      if (
        next === undefined ||
        generation !== this.#generation ||
        this.#snapshot !== base
      )
        return;
      const found = rows.filter((row) => row.seq !== null);
      found.forEach((row, index) => {
        const cursor = cursorAfter(
          base,
          next,
          row.seq!,
          index === found.length - 1,
        );
        this.feed.publish(
          changeFromRow(row as ChangeRow, cursor),
          BigInt(row.xid!),
        );
      });
      this.#snapshot = next;
    } catch (error) {
      this.#warnRead(error);
    }
  }

  #recovered(): void {
    if (!this.#failing) return;
    this.#failing = false;
    console.warn("[arbor] [postgres] The change feed reads the log again.");
  }

  #warnRead(error: unknown): void {
    if (this.#failing) return;
    this.#failing = true;
    console.warn(
      "[arbor] [postgres] Could not read the change log; retrying (logged once until it recovers):",
      messageOf(error),
    );
  }
}

// --- Internal helpers ---

/**
 * A row the scan sees was written by a committed transaction, which the snapshot of the same
 * statement (`s.snap`) sees too, unless the row's `xid` came from another cluster (a restored
 * dump): such a row would otherwise look uncommitted to every read and be delivered again and
 * again. It counts as old instead.
 */
const COMMITTED_NOW = "txid_visible_in_snapshot(c.xid, s.snap)";

/**
 * The cursor after a row of a catch-up from a `seq` (a watch of one session, whose seq order is
 * its commit order): the seq itself, and the catch-up's snapshot after the last row.
 */
function cursorFromSeqRead(seq: string, snapshot: string, last: boolean) {
  return last ? snapshot : seq;
}

function ignore(): void {}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

interface ChangeRow {
  seq: string;
  session_id: string;
  type: string;
  ids: string;
  at: string;
}

interface ReadRow {
  snap: string;
  seq: string | null;
  xid: string | null;
  session_id: string;
  type: string;
  ids: string;
  at: string;
}

interface CatchUpRow extends ReadRow {
  trimmed_seq: string | null;
  trimmed_xid: string | null;
  high: string;
  covered: boolean;
}

interface NotificationSource {
  on(event: "notification", handler: (message: unknown) => void): unknown;
  removeListener(
    event: "notification",
    handler: (message: unknown) => void,
  ): unknown;
}

interface PoolConnection {
  on(event: string, handler: (...args: unknown[]) => void): unknown;
  removeListener(event: string, handler: (...args: unknown[]) => void): unknown;
  query(sql: string): Promise<unknown>;
  release(error?: Error | boolean): void;
}

interface PoolLike {
  connect(): Promise<PoolConnection>;
}

interface PostgresJsListen {
  listen(
    channel: string,
    onNotify: () => void,
    onListen?: () => void,
  ): Promise<{ unlisten(): Promise<void> }>;
}
