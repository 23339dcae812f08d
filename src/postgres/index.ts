/**
 * PostgreSQL, whole: the session store, the context and knowledge providers, the registry, block
 * history, API keys and the schema (docs/postgres.md). Takes a `pg` Pool or Client, a postgres.js
 * `sql` or a Hyperdrive-style `execute` connection; imports no driver, so it loads in workerd.
 * `arbor-memory/session` keeps the seed-named providers and `applyPostgresSchema` for code ported
 * from the Agents SDK; this entry is the home of everything else.
 *
 * @example
 * ```ts
 * import pg from "pg";
 * import { Session } from "arbor-memory/session";
 * import { applyPostgresSchema, PostgresSessionProvider } from "arbor-memory/postgres";
 *
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * await applyPostgresSchema(pool);
 * const session = Session.create(new PostgresSessionProvider(pool, "chat-1"));
 * ```
 *
 * @module arbor-memory/postgres
 */
export {
  PostgresSessionProvider,
  type PostgresSessionProviderOptions,
  PostgresContextProvider,
  PostgresSearchProvider,
  PostgresBlockHistory,
  applyPostgresSchema,
  postgresSchemaSql,
  POSTGRES_SCHEMA_SQL,
  POSTGRES_SCHEMA_VERSION,
  type PostgresSchemaOptions,
  type PgClientLike,
  type PostgresClient,
  type PostgresConnection,
  type PostgresJsLike,
  type PostgresJsTransactionLike,
} from "../backends/postgres/index.js";
export { PostgresSessionRegistry } from "../backends/postgres/postgres-registry.js";
export {
  PostgresApiKeyStore,
  POSTGRES_API_KEYS_SQL,
} from "../backends/postgres/postgres-api-keys.js";
/** The database as a whole (the `Backend` contract), for `SessionManager.create(backend)`. */
export { postgresBackend } from "../backends/postgres/postgres-backend.js";
