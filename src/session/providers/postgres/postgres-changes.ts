import type { ChangeListener, Unsubscribe } from "../../contracts/changes.js";
import { ChangeFeed, changeFromRow } from "../../core/change-feed.js";
import type { PostgresExecutor } from "./postgres-client.js";
import { ADVISORY_LOCK_NAMESPACE } from "./postgres-locking.js";
import { isoSql, JSONB_PARAM } from "./postgres-sql.js";

/** The channel every change is announced on; the payload is the change's `seq` only. */
export const CHANGE_CHANNEL = "arbor_changes";

/** Change-log rows kept: older ones are trimmed (docs/behavior/events-and-audit.md, "Change feed"). */
export const CHANGE_LOG_RETENTION = 10_000;

/** How often an `execute`-style connection, which cannot LISTEN, polls the change log. */
export const CHANGE_POLL_INTERVAL_MS = 250;

/**
 * SQL that records one change and returns its seq; three `?`: session id, type, ids as a JSON
 * array. Runs inside the write's own statement or transaction, so a failed write records nothing.
 */
export const RECORD_CHANGE_SQL = `arbor_record_change(?, ?, ${JSONB_PARAM})`;

/**
 * The change log and `arbor_record_change()` (schema migration v2). The function takes a
 * transaction-level advisory lock before it draws the next `seq`, held until commit, so `seq`
 * order is commit order and a reader that remembers the last seq it saw never skips a row. It
 * notifies `CHANGE_CHANNEL` in the same transaction (delivered at commit) and trims the log.
 */
export function changeLogStatements(): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS arbor_changes (
      seq BIGSERIAL PRIMARY KEY,
      session_id TEXT NOT NULL,
      type TEXT NOT NULL,
      ids JSONB NOT NULL,
      at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
    )`,
    `CREATE OR REPLACE FUNCTION arbor_record_change(p_session TEXT, p_type TEXT, p_ids JSONB)
    RETURNS BIGINT LANGUAGE plpgsql AS $$
    DECLARE
      v_seq BIGINT;
    BEGIN
      PERFORM pg_advisory_xact_lock(${CHANGE_LOCK_NAMESPACE}, 0);
      INSERT INTO arbor_changes (session_id, type, ids) VALUES (p_session, p_type, p_ids)
        RETURNING seq INTO v_seq;
      IF v_seq % ${TRIM_EVERY} = 0 THEN
        DELETE FROM arbor_changes WHERE seq <= v_seq - ${CHANGE_LOG_RETENTION};
      END IF;
      PERFORM pg_notify('${CHANGE_CHANNEL}', v_seq::text);
      RETURN v_seq;
    END $$`,
  ];
}

/**
 * Resolves once the watchers of this client have read their starting point, so a write this
 * process issues after `watch()` returned is always delivered. Immediate without watchers.
 */
export function changeWatchersReady(client: object): Promise<void> | undefined {
  return hubs.get(client)?.starting;
}

/** Watches one session (`sessionId`) or every session (`null`) of the database behind `executor`. */
export function watchPostgresChanges(
  executor: PostgresExecutor,
  sessionId: string | null,
  listener: ChangeListener,
): Unsubscribe {
  let hub = hubs.get(executor.client);
  if (!hub) {
    hub = new ChangeHub(executor);
    hubs.set(executor.client, hub);
  }
  return hub.add(listener, sessionId);
}

// --- Internal helpers ---

/** First key of the change-log lock ("ARBC"), beside the session locks' "ARBR". */
const CHANGE_LOCK_NAMESPACE = ADVISORY_LOCK_NAMESPACE + 1;
const TRIM_EVERY = 1000;
const READ_BATCH = 1000;
const hubs = new WeakMap<object, ChangeHub>();

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

/**
 * One reader of the change log per client: it remembers the last seq it published and reads newer
 * rows when a notification arrives (a pg Pool lends it one connection for LISTEN, a pg Client
 * listens on itself, postgres.js on its own listen connection), or on a timer for `execute`-style
 * connections. Reads are serialized, and a notification during a read triggers one more.
 */
class ChangeHub {
  readonly #feed = new ChangeFeed();
  #cursor = "0";
  #reading: Promise<void> | null = null;
  #again = false;
  #stopListening: (() => Promise<void>) | null = null;
  #timer: ReturnType<typeof setInterval> | undefined;
  starting: Promise<void> | undefined;

  constructor(readonly executor: PostgresExecutor) {}

  add(listener: ChangeListener, sessionId: string | null): Unsubscribe {
    if (this.#feed.size === 0) this.starting = this.#start();
    return this.#feed.add(listener, sessionId, () => this.#stop());
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
      this.#cursor = row?.seq ?? "0";
      if (this.#feed.size === 0) this.#stop();
    } catch (error) {
      console.warn(
        "[arbor] [postgres] The change feed could not start:",
        error,
      );
    }
  }

  #stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    const stop = this.#stopListening;
    this.#stopListening = null;
    void stop?.().catch(() => undefined);
  }

  async #listen(): Promise<() => Promise<void>> {
    const onNotify = () => this.#wake();
    const client = this.executor.client as unknown;
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
      await this.starting;
      while (this.#feed.size > 0) {
        const rows = await this.executor.query<{
          seq: string;
          session_id: string;
          type: string;
          ids: string;
          at: string;
        }>(
          `SELECT c.seq::text AS seq, session_id, type, ids::text AS ids, ${isoSql("c.at")} AS at
          FROM arbor_changes AS c WHERE c.seq > ?::bigint ORDER BY c.seq LIMIT ${READ_BATCH}`,
          [this.#cursor],
        );
        for (const row of rows) {
          this.#cursor = row.seq;
          this.#feed.publish(changeFromRow(row));
        }
        if (rows.length < READ_BATCH) return;
      }
    } catch (error) {
      console.warn("[arbor] [postgres] Could not read the change log:", error);
    }
  }
}
