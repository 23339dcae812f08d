import type { ChangeFeed } from "../../session/core/change-feed.js";
import { changeFromRow } from "../../session/core/change-feed.js";
import type { PostgresExecutor } from "./postgres-client.js";
import {
  CHANGE_CHANNEL,
  CHANGE_POLL_INTERVAL_MS,
  CHANGE_SAFETY_POLL_MS,
} from "./postgres-change-log.js";
import { isoSql } from "./postgres-sql.js";

/**
 * The reader of the change log behind one client's watchers (`postgres-changes.ts`), loaded
 * with the other queries. It reads new rows when a notification arrives (a pg Pool lends it one
 * connection for LISTEN, a pg Client listens on itself, postgres.js on its own listen
 * connection), or on a timer for `execute`-style connections. Reads are serialized, and a
 * notification during a read triggers one more.
 *
 * Writes of different sessions may commit out of `seq` order (no lock spans them), so a row
 * may appear below one already read. The reader keeps a cursor below which every `seq` is
 * final (committed and read, or rolled back for good) and the set of seqs above it already
 * published, and publishes each row once. To move the cursor it takes marks: the highest `seq`
 * drawn so far, read before the mark takes its own transaction id. Every transaction that drew a
 * `seq` up to that height held a lower transaction id (`arbor_record_change()` makes sure of one
 * before drawing), so once a later snapshot's `xmin` passes the mark's id, each of them has ended
 * and every seq up to the height is final.
 */
export class ChangeReader {
  #cursor = 0n;
  #published = new Set<bigint>();
  #marks: Mark[] = [];
  #reading: Promise<void> | null = null;
  #again = false;
  #stopListening: (() => Promise<void>) | null = null;
  #timer: ReturnType<typeof setInterval> | undefined;
  #starting: Promise<void> | undefined;

  constructor(
    readonly executor: PostgresExecutor,
    readonly feed: ChangeFeed,
  ) {}

  /** Listens and reads the starting point; stops again when the feed emptied meanwhile. */
  start(): Promise<void> {
    this.#starting = this.#start();
    return this.#starting;
  }

  async #start(): Promise<void> {
    const previous = this.#stopListening;
    this.#stopListening = null;
    await previous?.().catch(() => undefined);
    try {
      this.#stopListening = await this.#listen();
      const [row] = await this.executor.query<{ seq: string | null }>(
        "SELECT MAX(seq)::text AS seq FROM arbor_changes",
      );
      this.#cursor = BigInt(row?.seq ?? "0");
      this.#published.clear();
      this.#marks = [];
      if (this.feed.size === 0) this.stop();
    } catch (error) {
      console.warn(
        "[arbor] [postgres] The change feed could not start:",
        error,
      );
    }
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    const stop = this.#stopListening;
    this.#stopListening = null;
    void stop?.().catch(() => undefined);
  }

  async #listen(): Promise<() => Promise<void>> {
    const onNotify = () => this.#wake();
    const client = this.executor.client as unknown;
    // Announcements can be lost (a writer that dies between its commit and its announcement, or
    // an older Arbor that notified inside the transaction): a slow poll bounds the delay.
    this.#timer = setInterval(onNotify, CHANGE_SAFETY_POLL_MS);
    (this.#timer as { unref?: () => void }).unref?.();
    if (this.executor.kind === "pool") {
      const connection = await (client as PoolLike).connect();
      connection.on("notification", onNotify);
      await connection.query(`LISTEN ${CHANGE_CHANNEL}`);
      return async () => {
        connection.removeListener("notification", onNotify);
        try {
          await connection.query(`UNLISTEN ${CHANGE_CHANNEL}`);
          connection.release();
        } catch (error) {
          connection.release(error as Error);
        }
      };
    }
    if (this.executor.kind === "client") {
      const source = client as NotificationSource;
      source.on("notification", onNotify);
      await this.executor.query(`LISTEN ${CHANGE_CHANNEL}`);
      return async () => {
        source.removeListener("notification", onNotify);
        await this.executor.query(`UNLISTEN ${CHANGE_CHANNEL}`);
      };
    }
    if (typeof (client as Partial<PostgresJsListen>).listen === "function") {
      const subscription = await (client as PostgresJsListen).listen(
        CHANGE_CHANNEL,
        onNotify,
      );
      return () => subscription.unlisten();
    }
    // An execute-style connection holds no session to LISTEN on: poll the log instead.
    clearInterval(this.#timer);
    this.#timer = setInterval(onNotify, CHANGE_POLL_INTERVAL_MS);
    (this.#timer as { unref?: () => void }).unref?.();
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

  async #readAll(): Promise<void> {
    try {
      await this.#starting;
      if (this.feed.size === 0) return;
      const final = await this.#mark();
      const seen = new Set<bigint>();
      let after = this.#cursor;
      while (this.feed.size > 0) {
        const rows = await this.executor.query<{
          seq: string;
          session_id: string;
          type: string;
          ids: string;
          at: string;
        }>(
          `SELECT c.seq::text AS seq, session_id, type, ids::text AS ids, ${isoSql("c.at")} AS at
          FROM arbor_changes AS c WHERE c.seq > ?::bigint ORDER BY c.seq LIMIT ${READ_BATCH}`,
          [after.toString()],
        );
        for (const row of rows) {
          const seq = BigInt(row.seq);
          after = seq;
          seen.add(seq);
          if (this.#published.has(seq)) continue;
          this.#published.add(seq);
          this.feed.publish(changeFromRow(row));
        }
        if (rows.length < READ_BATCH) {
          this.#advance(final, seen);
          return;
        }
      }
    } catch (error) {
      console.warn("[arbor] [postgres] Could not read the change log:", error);
    }
  }

  /**
   * Reads the snapshot's `xmin` and, when rows above the cursor wait for one, takes a new mark;
   * returns the highest seq the marks now prove final (the rows this read returns include every
   * committed row up to it), or the cursor when none is proven.
   */
  async #mark(): Promise<bigint> {
    const wanted = this.#published.size > 0 && this.#marks.length === 0;
    const [row] = await this.executor.query<{
      xmin: string;
      high: string;
      xid: string | null;
    }>(
      `SELECT txid_snapshot_xmin(txid_current_snapshot())::text AS xmin, h.high,
        CASE WHEN ?::boolean THEN txid_current()::text END AS xid
      FROM (SELECT COALESCE(pg_sequence_last_value(
        pg_get_serial_sequence('arbor_changes', 'seq')::regclass), 0)::text AS high OFFSET 0) AS h`,
      [wanted],
    );
    let final = this.#cursor;
    if (!row) return final;
    const xmin = BigInt(row.xmin);
    this.#marks = this.#marks.filter((mark) => {
      if (mark.xid >= xmin) return true;
      if (mark.high > final) final = mark.high;
      return false;
    });
    if (row.xid !== null) {
      this.#marks.push({ high: BigInt(row.high), xid: BigInt(row.xid) });
    }
    return final;
  }

  /** After a complete read: moves the cursor to `final`, forgets seqs below it or trimmed away. */
  #advance(final: bigint, seen: ReadonlySet<bigint>): void {
    if (final > this.#cursor) this.#cursor = final;
    for (const seq of this.#published) {
      if (seq <= this.#cursor || !seen.has(seq)) this.#published.delete(seq);
    }
  }
}

// --- Internal helpers ---

const READ_BATCH = 1000;

/** Every transaction that drew a seq up to `high` has a transaction id below `xid`. */
interface Mark {
  high: bigint;
  xid: bigint;
}

interface NotificationSource {
  on(event: "notification", handler: (message: unknown) => void): unknown;
  removeListener(
    event: "notification",
    handler: (message: unknown) => void,
  ): unknown;
}

interface PoolLike {
  connect(): Promise<
    NotificationSource & {
      query(sql: string): Promise<unknown>;
      release(error?: Error | boolean): void;
    }
  >;
}

interface PostgresJsListen {
  listen(
    channel: string,
    onNotify: () => void,
  ): Promise<{ unlisten(): Promise<void> }>;
}
