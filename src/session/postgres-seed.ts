/**
 * The PostgreSQL names `arbor-memory/session` keeps, so code written for the Agents SDK ports by
 * changing an import: the seed-named providers, and `applyPostgresSchema`, whose schema and
 * migration code loads with its first call. Everything else PostgreSQL (the registry, the DDL as
 * text, API keys, the backend) is in `arbor-memory/postgres`; keeping it out of this entry keeps
 * a Worker that never talks to PostgreSQL small.
 */
import type {
  PostgresClient,
  PostgresSchemaOptions,
} from "../backends/postgres/index.js";

export {
  PostgresSessionProvider,
  PostgresContextProvider,
  PostgresSearchProvider,
} from "../backends/postgres/index.js";

/**
 * Creates or upgrades Arbor's tables in the connected database (the same function as
 * `arbor-memory/postgres`'s, loaded on first call): runs the pending migrations, recorded in
 * `arbor_meta`. With a `pg` Pool or Client it runs in one transaction holding an advisory lock,
 * so several app instances may call it at start-up.
 *
 * Throws `INVALID_ARGUMENT` when the database already indexes text with another configuration,
 * and `SCHEMA_VERSION` when it was written by a newer Arbor.
 *
 * @example
 * ```ts
 * import pg from "pg";
 * import { applyPostgresSchema, PostgresSessionProvider, Session } from "arbor-memory/session";
 *
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * await applyPostgresSchema(pool); // once, at deploy or start-up
 * const session = Session.create(new PostgresSessionProvider(pool, "chat-1"));
 * ```
 */
export async function applyPostgresSchema(
  client: PostgresClient,
  options: PostgresSchemaOptions = {},
): Promise<{ version: number; textSearchConfig: string }> {
  const schema = await import("../backends/postgres/postgres-schema.js");
  return schema.applyPostgresSchema(client, options);
}
