/**
 * The PostgreSQL client shapes Arbor accepts (docs/postgres.md), beside the `sql` store shape of
 * sql-provider.ts: structural types, so neither `pg` nor `postgres` is a dependency, and the
 * detection that tells a client from a `sql` store where one entry takes both.
 */

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
    options?: { prepare?: boolean },
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
    options?: { prepare?: boolean },
  ): PromiseLike<ArrayLike<Record<string, unknown>>>;
}

/** What the Postgres providers accept; the kind is detected by its methods. */
export type PostgresClient = PgClientLike | PostgresConnection | PostgresJsLike;

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

/** A postgres.js `sql`: a function with `unsafe` and `begin`. */
export function isPostgresJs(value: unknown): value is PostgresJsLike {
  return (
    typeof value === "function" &&
    typeof (value as { unsafe?: unknown }).unsafe === "function" &&
    typeof (value as { begin?: unknown }).begin === "function"
  );
}
