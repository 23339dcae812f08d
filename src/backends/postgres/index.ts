/**
 * @module The PostgreSQL backend (docs/behavior/storage.md): message store, context and knowledge providers,
 * registry, block history, the database as a `Backend`, and the schema. Takes a `pg` Pool or
 * Client, a postgres.js `sql` or a Hyperdrive-style `execute` connection; imports no driver, so it
 * loads in workerd. arbor-memory/postgres exports it, and arbor-memory/session re-exports the
 * seed-named classes.
 */
export {
  PostgresSessionProvider,
  type PostgresSessionProviderOptions,
} from "./postgres-session-provider.js";
export { PostgresContextProvider } from "./postgres-context-provider.js";
export { PostgresSearchProvider } from "./postgres-search-provider.js";
export { PostgresBlockHistory } from "./postgres-block-history.js";
export { PostgresSessionRegistry } from "./postgres-registry.js";
export { postgresBackend } from "./postgres-backend.js";
export {
  applyPostgresSchema,
  POSTGRES_SCHEMA_VERSION,
  type PostgresSchemaOptions,
} from "./postgres-schema.js";
export {
  postgresSchemaSql,
  POSTGRES_SCHEMA_SQL,
} from "./postgres-schema-sql.js";
export type {
  PgClientLike,
  PostgresClient,
  PostgresConnection,
  PostgresJsLike,
  PostgresJsTransactionLike,
} from "./postgres-client.js";
