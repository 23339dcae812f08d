/**
 * What `postgresOps()` loads: the query code behind the Postgres providers, the registry, the
 * change feed and `applyPostgresSchema()`. Only `postgres-lazy.ts` imports this module, so
 * bundlers emit it (and what only it reaches) as a separate chunk.
 */
export { postgresExecutor } from "./postgres-executor.js";
export { PostgresSessionStore } from "./postgres-session-store.js";
export { PostgresRegistryStore } from "./postgres-registry-store.js";
export { PostgresContextStore } from "./postgres-context-store.js";
export { PostgresBlockHistoryStore } from "./postgres-block-history-store.js";
export { PostgresSearchStore } from "./postgres-search-store.js";
export { ChangeReader } from "./postgres-change-reader.js";
export { migrateSchema } from "./postgres-settings.js";
