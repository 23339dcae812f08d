/**
 * @module The PostgreSQL backend (SPEC §12.2): message store, context and knowledge providers and
 * the schema. Takes a `pg` Pool or Client or a Hyperdrive-style `execute` connection; imports no
 * driver, so it loads in workerd.
 */
export { PostgresSessionProvider } from "./postgres-session-provider.js";
export { PostgresContextProvider } from "./postgres-context-provider.js";
export { PostgresSearchProvider } from "./postgres-search-provider.js";
export { PostgresBlockHistory } from "./postgres-block-history.js";
export {
  applyPostgresSchema,
  postgresSchemaSql,
  POSTGRES_SCHEMA_SQL,
  POSTGRES_SCHEMA_VERSION,
  type PostgresSchemaOptions,
} from "./postgres-schema.js";
export type {
  PgClientLike,
  PostgresClient,
  PostgresConnection,
} from "./postgres-client.js";
