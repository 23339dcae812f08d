import {
  isPostgresClient,
  type PostgresClient,
} from "../../session/contracts/postgres-client.js";
import { ArborTypeError } from "../../session/errors/index.js";

export {
  isPostgresClient,
  isPostgresJs,
  type PgClientLike,
  type PostgresClient,
  type PostgresConnection,
  type PostgresJsLike,
  type PostgresJsTransactionLike,
} from "../../session/contracts/postgres-client.js";

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
