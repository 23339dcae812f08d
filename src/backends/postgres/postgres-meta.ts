/**
 * What the running providers and the schema code both read of `arbor_meta`: its keys, the schema
 * version this build writes and needs, and the default text-search configuration. Kept apart from
 * the DDL (postgres-ddl.ts) so that checking a database's version loads no DDL: the schema code
 * loads on `applyPostgresSchema()` only (ARCHITECTURE.md, "What loads lazily").
 */

/**
 * The schema version this build of Arbor writes and needs: the number of steps in `MIGRATIONS`
 * (postgres-migrations.ts), raised with each step added there (a test holds the two equal).
 */
export const POSTGRES_SCHEMA_VERSION: number = 7;

/** The text-search configuration of the reference DDL (published with the Cloudflare Agents SDK Session API). */
export const DEFAULT_TEXT_SEARCH_CONFIG = "english";

/** `arbor_meta` keys. */
export const SCHEMA_VERSION_KEY = "postgres_schema_version";
export const TEXT_SEARCH_CONFIG_KEY = "text_search_config";
/** The token estimate the database was created with (docs/token-estimation.md). */
export const TOKEN_ESTIMATE_KEY = "token_estimate";
