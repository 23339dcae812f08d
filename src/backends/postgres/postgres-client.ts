import { ArborTypeError } from "../../session/errors/index.js";

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

/** `client` when it is a Postgres client (`isPostgresClient`); throws `INVALID_TARGET` otherwise. */
export function checkPostgresClient(client: PostgresClient): PostgresClient {
  if (!isPostgresClient(client)) {
    throw new ArborTypeError(
      "INVALID_TARGET",
      "[arbor] [postgres] Expected a pg Client or Pool (with `query(text, values)`), a postgres.js `sql`, or a connection with `execute(query, args)`",
    );
  }
  return client;
}

/** A postgres.js `sql`: a function with `unsafe` and `begin`. */
export function isPostgresJs(value: unknown): value is PostgresJsLike {
  return (
    typeof value === "function" &&
    typeof (value as { unsafe?: unknown }).unsafe === "function" &&
    typeof (value as { begin?: unknown }).begin === "function"
  );
}
