import { runExclusive } from "../../core/keyed-mutex.js";
import { ArborError, ArborTypeError } from "../../errors/index.js";
import { bindable, readable } from "./postgres-values.js";

/**
 * A `pg`-style client: `pg.Client`, `pg.Pool`, or anything with the same `query(text, values)`
 * (Neon, `@vercel/postgres`). Queries reach it with `$1, $2, …` placeholders.
 */
export interface PgClientLike {
  query(
    text: string,
    values?: unknown[],
  ): Promise<{ rows: Record<string, unknown>[] }>;
}

/**
 * A Hyperdrive-style connection: one statement per `execute` call, `?` placeholders, no
 * transaction across calls.
 */
export interface PostgresConnection {
  execute(
    query: string,
    args?: unknown[],
  ): Promise<{ rows: Record<string, unknown>[] }>;
}

/**
 * A postgres.js `sql` instance (`postgres(url)` from the `postgres` package), passed as it is:
 * statements run through `sql.unsafe(text, values)` with `$1, $2, …` placeholders, transactions
 * through `sql.begin`. Recognized by being a function with `unsafe` and `begin`.
 */
export interface PostgresJsLike {
  unsafe(
    query: string,
    parameters?: unknown[],
  ): PromiseLike<ArrayLike<Record<string, unknown>>>;
  begin(
    work: (transaction: PostgresJsTransactionLike) => Promise<unknown>,
  ): PromiseLike<unknown>;
}

/** The `sql` postgres.js hands to a `begin` callback: one connection, inside the transaction. */
export interface PostgresJsTransactionLike {
  unsafe(
    query: string,
    parameters?: unknown[],
  ): PromiseLike<ArrayLike<Record<string, unknown>>>;
}

/** What the Postgres providers accept; the kind is detected by its methods. */
export type PostgresClient = PgClientLike | PostgresConnection | PostgresJsLike;

/** Runs one statement (SQL with `?` placeholders) and resolves to its rows. */
export interface PostgresQueryable {
  query<Row = Record<string, unknown>>(
    sql: string,
    params?: readonly unknown[],
  ): Promise<Row[]>;
}

/**
 * How Arbor talks to one client, shared by every provider over it (docs/behavior/storage.md):
 *
 * - `pool`: `pg.Pool` (recognized by `connect()` plus its `totalCount` counter). Statements go to
 *   the pool; a transaction checks out one connection for its whole length.
 * - `client`: one connection with `query` (`pg.Client`, a checked-out pool client). Every
 *   statement and every transaction runs under an in-process mutex, so a transaction never
 *   interleaves with other work Arbor sends on that connection.
 * - `execute`: a Hyperdrive-style `execute(query, args)`; `?` placeholders pass unchanged. No
 *   transactions: callers use single statements (see `supportsTransactions`).
 * - `postgres-js`: a postgres.js `sql` (a pool of its own). Statements go to `sql.unsafe`; a
 *   transaction runs in `sql.begin`, on one connection for its whole length.
 *
 * Every kind binds the same values (see `bindable`) and reads the same rows (see `readable`), so
 * the SQL never depends on how a driver infers or serialises types.
 */
export interface PostgresExecutor extends PostgresQueryable {
  readonly kind: "pool" | "client" | "execute" | "postgres-js";
  /** The object the caller passed; it identifies the store (Session append locks key on it). */
  readonly client: PostgresClient;
  /** `false` for `execute`-style connections. */
  readonly supportsTransactions: boolean;
  /**
   * Runs `work` inside `BEGIN … COMMIT` on one connection (rolled back when it throws).
   * Throws `NOT_SUPPORTED` for `execute`-style connections.
   */
  transaction<T>(work: (tx: PostgresQueryable) => Promise<T>): Promise<T>;
}

/** True for an object with a callable `query` or `execute` method, or a postgres.js `sql`. */
export function isPostgresClient(value: unknown): value is PostgresClient {
  return (
    (typeof value === "object" &&
      value !== null &&
      (typeof (value as { query?: unknown }).query === "function" ||
        typeof (value as { execute?: unknown }).execute === "function")) ||
    isPostgresJs(value)
  );
}

/**
 * The executor of a client: one per client object, so every provider over it shares the
 * connection mutex of a single `pg.Client`. Throws `INVALID_TARGET` for anything else.
 */
export function postgresExecutor(client: PostgresClient): PostgresExecutor {
  if (!isPostgresClient(client)) {
    throw new ArborTypeError(
      "INVALID_TARGET",
      "[arbor] [postgres] Expected a pg Client or Pool (with `query(text, values)`), a postgres.js `sql`, or a connection with `execute(query, args)`",
    );
  }
  let executor = executors.get(client);
  if (!executor) {
    executor = createExecutor(client);
    executors.set(client, executor);
  }
  return executor;
}

/**
 * Rewrites `?` placeholders to `$1, $2, …`, leaving `?` inside string literals, quoted
 * identifiers and comments alone. Arbor's SQL never uses the `?` jsonb operators.
 */
export function numberPlaceholders(sql: string): string {
  let out = "";
  let index = 0;
  let number = 0;
  while (index < sql.length) {
    const char = sql[index]!;
    if (char === "'" || char === '"') {
      const end = closingQuote(sql, index, char);
      out += sql.slice(index, end);
      index = end;
    } else if (char === "-" && sql[index + 1] === "-") {
      const end = sql.indexOf("\n", index);
      const stop = end === -1 ? sql.length : end;
      out += sql.slice(index, stop);
      index = stop;
    } else if (char === "?") {
      out += `$${++number}`;
      index++;
    } else {
      out += char;
      index++;
    }
  }
  return out;
}

// --- Internal helpers ---

const executors = new WeakMap<object, PostgresExecutor>();

/** The mutex key of a single connection (the store object is the executor, never a Session's). */
const CONNECTION_KEY = "connection";

interface PgPoolLike extends PgClientLike {
  connect(): Promise<PgPoolClientLike>;
}

interface PgPoolClientLike extends PgClientLike {
  release(error?: Error | boolean): void;
}

function createExecutor(client: PostgresClient): PostgresExecutor {
  if (isPostgresJs(client)) return postgresJsExecutor(client);
  if (typeof (client as PgClientLike).query === "function") {
    const pg = client as PgClientLike;
    return isPool(pg) ? poolExecutor(pg) : clientExecutor(pg);
  }
  return executeExecutor(client as PostgresConnection);
}

function isPool(client: PgClientLike): client is PgPoolLike {
  return (
    typeof (client as { connect?: unknown }).connect === "function" &&
    typeof (client as { totalCount?: unknown }).totalCount === "number"
  );
}

function pgQueryable(client: PgClientLike): PostgresQueryable {
  return {
    async query<Row>(sql: string, params: readonly unknown[] = []) {
      const result = await client.query(
        params.length > 0 ? numberPlaceholders(sql) : sql,
        bindable(params),
      );
      return readable(result.rows) as Row[];
    },
  };
}

function poolExecutor(pool: PgPoolLike): PostgresExecutor {
  const direct = pgQueryable(pool);
  return {
    kind: "pool",
    client: pool,
    supportsTransactions: true,
    query: direct.query,
    async transaction(work) {
      const connection = await pool.connect();
      let broken: Error | undefined;
      try {
        return await runTransaction(pgQueryable(connection), work, (error) => {
          broken = error;
        });
      } finally {
        // A connection whose ROLLBACK failed is in an unknown state: the pool discards it.
        connection.release(broken);
      }
    },
  };
}

function clientExecutor(client: PgClientLike): PostgresExecutor {
  const direct = pgQueryable(client);
  const executor: PostgresExecutor = {
    kind: "client",
    client,
    supportsTransactions: true,
    query: (sql, params) =>
      runExclusive(executor, CONNECTION_KEY, () => direct.query(sql, params)),
    transaction: (work) =>
      runExclusive(executor, CONNECTION_KEY, () =>
        runTransaction(direct, work, () => undefined),
      ),
  };
  return executor;
}

function executeExecutor(connection: PostgresConnection): PostgresExecutor {
  return {
    kind: "execute",
    client: connection,
    supportsTransactions: false,
    async query<Row>(sql: string, params: readonly unknown[] = []) {
      const result = await connection.execute(sql, bindable(params));
      return readable(result?.rows) as Row[];
    },
    transaction() {
      return Promise.reject(
        new ArborError(
          "NOT_SUPPORTED",
          "[arbor] [postgres] An execute-style connection cannot run a transaction across statements; pass a pg Client or Pool",
        ),
      );
    },
  };
}

function isPostgresJs(value: unknown): value is PostgresJsLike {
  return (
    typeof value === "function" &&
    typeof (value as { unsafe?: unknown }).unsafe === "function" &&
    typeof (value as { begin?: unknown }).begin === "function"
  );
}

function postgresJsQueryable(
  sql: PostgresJsTransactionLike,
): PostgresQueryable {
  return {
    async query<Row>(text: string, params: readonly unknown[] = []) {
      const rows = await sql.unsafe(
        params.length > 0 ? numberPlaceholders(text) : text,
        bindable(params),
      );
      return readable(rows) as Row[];
    },
  };
}

function postgresJsExecutor(sql: PostgresJsLike): PostgresExecutor {
  return {
    kind: "postgres-js",
    client: sql,
    supportsTransactions: true,
    query: postgresJsQueryable(sql).query,
    async transaction<T>(work: (tx: PostgresQueryable) => Promise<T>) {
      // The result leaves through the closure: `begin` would await the elements of an array
      // result, and its return type is the driver's.
      let result: { value: T } | undefined;
      await sql.begin(async (transaction) => {
        result = { value: await work(postgresJsQueryable(transaction)) };
      });
      return result!.value;
    },
  };
}

async function runTransaction<T>(
  connection: PostgresQueryable,
  work: (tx: PostgresQueryable) => Promise<T>,
  onBroken: (error: Error) => void,
): Promise<T> {
  await connection.query("BEGIN");
  let result: T;
  try {
    result = await work(connection);
  } catch (error) {
    try {
      await connection.query("ROLLBACK");
    } catch (rollbackError) {
      onBroken(rollbackError as Error);
    }
    throw error;
  }
  await connection.query("COMMIT");
  return result;
}

function closingQuote(sql: string, start: number, quote: string): number {
  let index = start + 1;
  while (index < sql.length) {
    if (sql[index] === quote) {
      if (sql[index + 1] === quote) index += 2;
      else return index + 1;
    } else index++;
  }
  return sql.length;
}
