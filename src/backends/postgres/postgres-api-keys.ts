import type { PostgresClient } from "./postgres-client.js";
import { postgresExecutor } from "./postgres-executor.js";
import type { ApiKeyTable } from "../../session/contracts/api-keys.js";
import { TableApiKeyStore } from "../../session/keys/api-keys.js";

/** The table of `PostgresApiKeyStore`; `arbor migrate` prints it, the store applies it once. */
export const POSTGRES_API_KEYS_SQL = `CREATE TABLE IF NOT EXISTS arbor_api_keys (
  id TEXT PRIMARY KEY,
  tenant TEXT NOT NULL,
  name TEXT,
  key_hash TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL
);`;

interface KeyRow {
  id: string;
  tenant: string;
  name: string | null;
  created_at: string;
}

/**
 * API keys in the `arbor_api_keys` table of PostgreSQL, over the same clients as the session
 * store (a `pg` Pool or Client, a postgres.js `sql`, an `execute` connection). The table is
 * created on first use (`POSTGRES_API_KEYS_SQL`).
 */
export class PostgresApiKeyStore extends TableApiKeyStore {
  constructor(client: PostgresClient) {
    super(postgresKeyTable(client));
  }
}

// --- Internal helpers ---

/** The executor maps the driver's errors to Arbor's (postgres-errors.ts). */
function postgresKeyTable(client: PostgresClient): ApiKeyTable {
  const db = postgresExecutor(client);
  let ready: Promise<unknown> | undefined;
  const query = async <Row = Record<string, unknown>>(
    sql: string,
    params: unknown[] = [],
  ): Promise<Row[]> => {
    ready ??= db.query(POSTGRES_API_KEYS_SQL).catch((error: unknown) => {
      ready = undefined;
      throw error;
    });
    await ready;
    return db.query<Row>(sql, params);
  };
  return {
    insert: async (record, keyHash) => {
      await query(
        `INSERT INTO arbor_api_keys (id, tenant, name, key_hash, created_at)
         VALUES (?, ?, ?, ?, ?)`,
        [record.id, record.tenant, record.name, keyHash, record.createdAt],
      );
    },
    list: async () =>
      (
        await query<KeyRow>(
          `SELECT id, tenant, name, created_at FROM arbor_api_keys ORDER BY created_at, id`,
        )
      ).map((row) => ({
        id: row.id,
        tenant: row.tenant,
        name: row.name,
        createdAt: row.created_at,
      })),
    delete: async (id) =>
      (
        await query(`DELETE FROM arbor_api_keys WHERE id = ? RETURNING id`, [
          id,
        ])
      ).length > 0,
    tenantOf: async (keyHash) => {
      const [row] = await query<{ tenant: string }>(
        `SELECT tenant FROM arbor_api_keys WHERE key_hash = ?`,
        [keyHash],
      );
      return row?.tenant ?? null;
    },
    any: async () =>
      (await query(`SELECT 1 FROM arbor_api_keys LIMIT 1`)).length > 0,
  };
}
