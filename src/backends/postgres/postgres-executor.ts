import { KeyedMutex } from "../../session/state/keyed-mutex.js";
import { StoreSlot, storeRuntime } from "../../session/state/store-runtime.js";
import { ArborError } from "../../session/errors/index.js";
import { postgresError } from "./postgres-errors.js";
import {
  checkPostgresClient,
  isPostgresJs,
  type PgClientLike,
  type PostgresClient,
  type PostgresConnection,
  type PostgresExecutor,
  type PostgresJsLike,
  type PostgresJsTransactionLike,
  type PostgresQueryable,
} from "./postgres-client.js";
import {
  ANNOUNCE_DELAY_MS,
  ANNOUNCE_SQL,
  RECORD_CHANGE_CALL,
} from "./postgres-change-log.js";
import { LostStatementGuard } from "./postgres-lost-statements.js";
import { bindable, readable } from "./postgres-values.js";
import { StatementNames, worthNaming } from "./postgres-statement-names.js";

/**
 * The executor of a client: one per client object, so every provider over it shares the
 * connection mutex of a single `pg.Client`. Throws `INVALID_TARGET` for anything else.
 */
export function postgresExecutor(client: PostgresClient): PostgresExecutor {
  checkPostgresClient(client);
  return storeRuntime(client).own(EXECUTOR, () =>
    announcing(createExecutor(client)),
  );
}

/**
 * The executor, announcing committed changes: after a statement or a transaction that called
 * `arbor_record_change()` succeeds, one `pg_notify` follows within `ANNOUNCE_DELAY_MS`, shared by
 * every commit in between. Outside the writing transaction, a notification does not serialize
 * commits (postgres-change-log.ts).
 *
 * It is also where the driver's errors become Arbor's (`postgresError`): every statement, and a
 * transaction's connect, `BEGIN` and `COMMIT`. What the transaction's own work throws passes as it
 * is (its statements' errors are already Arbor's; anything else is not the database's).
 */
function announcing(executor: PostgresExecutor): PostgresExecutor {
  let pending: ReturnType<typeof setTimeout> | undefined;
  const announce = () => {
    if (pending !== undefined) return;
    pending = setTimeout(() => {
      pending = undefined;
      // Best effort: a failed announcement is covered by the readers' safety poll.
      executor.query(ANNOUNCE_SQL).catch(() => undefined);
    }, ANNOUNCE_DELAY_MS);
  };
  const records = (sql: string) => sql.includes(RECORD_CHANGE_CALL);
  return {
    ...executor,
    async query<Row>(sql: string, params?: readonly unknown[]) {
      const rows = await executor
        .query<Row>(sql, params)
        .catch(rethrowPostgresError);
      if (records(sql)) announce();
      return rows;
    },
    async transaction<T>(work: (tx: PostgresQueryable) => Promise<T>) {
      let recorded = false;
      let workFailure: { error: unknown } | undefined;
      const result = await executor
        .transaction(async (tx) => {
          try {
            return await work({
              query: <Row>(sql: string, params?: readonly unknown[]) => {
                if (records(sql)) recorded = true;
                return tx.query<Row>(sql, params).catch(rethrowPostgresError);
              },
            });
          } catch (error) {
            workFailure = { error };
            throw error;
          }
        })
        .catch((error: unknown) => {
          if (workFailure !== undefined && workFailure.error === error)
            throw error;
          return rethrowPostgresError(error);
        });
      if (recorded) announce();
      return result;
    },
  };
}

function rethrowPostgresError(error: unknown): never {
  throw postgresError(error);
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

/** One executor per client, shared by every provider and backend over it (its statement queue). */
const EXECUTOR = new StoreSlot<PostgresExecutor>("postgres executor");

/** The mutex key of a single connection: its statements and transactions run one at a time. */
const CONNECTION_KEY = "connection";

interface PgPoolLike extends PgClientLike {
  connect(): Promise<PgPoolClientLike>;
}

interface PgPoolClientLike extends PgClientLike {
  release(error?: Error | boolean): void;
  /** pg's event emitter; optional, for pool-like objects that are not pg's. */
  on?(event: "error", listener: (error: Error) => void): unknown;
  removeListener?(event: "error", listener: (error: Error) => void): unknown;
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

/**
 * Statements over one pg client or connection, named through `names` (postgres-statement-names.ts).
 * Outside a transaction a statement the server refused by name is sent again unnamed; inside one
 * the refusal has aborted the transaction, so it propagates (later statements go unnamed).
 */
function pgQueryable(
  client: PgClientLike,
  names: StatementNames,
  inTransaction: boolean,
): PostgresQueryable {
  return {
    async query<Row>(sql: string, params: readonly unknown[] = []) {
      const values = bindable(params);
      const statement = names.statement(sql, params.length);
      let result: { rows: Record<string, unknown>[] };
      try {
        result =
          statement.name === undefined || !acceptsQueryConfig(client)
            ? await client.query(statement.text, values)
            : await client.query({ ...statement, values });
      } catch (error) {
        if (statement.name === undefined || !names.refuses(error)) throw error;
        if (inTransaction) throw error;
        result = await client.query(statement.text, values);
      }
      return readable(result.rows) as Row[];
    },
  };
}

/** node-postgres's own query form, which carries the statement's name. */
interface PgConfigQueryable {
  query(config: {
    text: string;
    name?: string;
    values: unknown[];
  }): Promise<{ rows: Record<string, unknown>[] }>;
}

/**
 * A pg `Pool`, `Client` or pool client, which take a query config: a pool by its counters, a
 * connection by its `connectionParameters`. Other objects with `query(text, values)` get
 * unnamed statements only.
 */
function acceptsQueryConfig(
  client: PgClientLike,
): client is PgClientLike & PgConfigQueryable {
  return (
    isPool(client) ||
    typeof (client as { connectionParameters?: unknown })
      .connectionParameters === "object"
  );
}

function poolExecutor(pool: PgPoolLike): PostgresExecutor {
  const names = new StatementNames(numberPlaceholders);
  const direct = pgQueryable(pool, names, false);
  return {
    kind: "pool",
    client: pool,
    supportsTransactions: true,
    query: <Row>(sql: string, params?: readonly unknown[]) =>
      direct.query<Row>(sql, params),
    async transaction(work) {
      const connection = await pool.connect();
      let broken: Error | undefined;
      // A checked-out pg client emits `error` itself when its backend goes (57P01 when
      // PostgreSQL restarts); the pool listens only on idle ones, and an unheard error event
      // crashes the process. The statement in flight fails with the same error, so here it only
      // marks the connection for the pool to discard.
      const onError = (error: Error) => {
        broken ??= error;
      };
      connection.on?.("error", onError);
      try {
        return await runTransaction(
          pgQueryable(connection, names, true),
          work,
          (error) => {
            broken = error;
          },
        );
      } finally {
        // A discarded connection keeps the listener: it may still report its end.
        if (!broken) connection.removeListener?.("error", onError);
        // A connection whose ROLLBACK failed, or whose backend went, is in an unknown state: the
        // pool discards it.
        connection.release(broken);
      }
    },
  };
}

function clientExecutor(client: PgClientLike): PostgresExecutor {
  const names = new StatementNames(numberPlaceholders);
  const direct = pgQueryable(client, names, false);
  const inTransaction = pgQueryable(client, names, true);
  const connection = new KeyedMutex();
  return {
    kind: "client",
    client,
    supportsTransactions: true,
    query: (sql, params) =>
      connection.run(CONNECTION_KEY, () => direct.query(sql, params)),
    transaction: (work) =>
      connection.run(CONNECTION_KEY, () =>
        runTransaction(inTransaction, work, () => undefined),
      ),
  };
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

function postgresJsQueryable(
  sql: PostgresJsTransactionLike,
  guard: LostStatementGuard,
): PostgresQueryable {
  return {
    async query<Row>(text: string, params: readonly unknown[] = []) {
      // postgres.js names and caches the statement itself when asked to, and keeps a client's
      // own `prepare: false` (a pooler in transaction mode) over this request.
      const rows = await guard.run(() =>
        sql.unsafe(
          params.length > 0 ? numberPlaceholders(text) : text,
          bindable(params),
          { prepare: worthNaming(text, params.length) },
        ),
      );
      return readable(rows) as Row[];
    },
  };
}

function postgresJsExecutor(sql: PostgresJsLike): PostgresExecutor {
  // One guard per client: a fault seen by any statement arms the deadline of all the others.
  const guard = new LostStatementGuard();
  const direct = postgresJsQueryable(sql, guard);
  return {
    kind: "postgres-js",
    client: sql,
    supportsTransactions: true,
    query: <Row>(text: string, params?: readonly unknown[]) =>
      direct.query<Row>(text, params),
    async transaction<T>(work: (tx: PostgresQueryable) => Promise<T>) {
      // The result leaves through the closure: `begin` would await the elements of an array
      // result, and its return type is the driver's.
      let result: { value: T } | undefined;
      await guard.run(() =>
        sql.begin(async (transaction) => {
          result = {
            value: await work(postgresJsQueryable(transaction, guard)),
          };
        }),
      );
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
