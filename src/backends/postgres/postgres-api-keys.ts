import type { PostgresClient, PostgresExecutor } from "./postgres-client.js";
import { postgresExecutor } from "./postgres-executor.js";
import type {
  ApiKeyRecord,
  ApiKeyStore,
} from "../../session/contracts/api-keys.js";
import {
  generateApiKey,
  hashApiKey,
  looksLikeApiKey,
  newKeyRecord,
} from "../../session/core/api-keys.js";

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
export class PostgresApiKeyStore implements ApiKeyStore {
  readonly #db: PostgresExecutor;
  #ready: Promise<unknown> | undefined;

  constructor(client: PostgresClient) {
    this.#db = postgresExecutor(client);
  }

  async create(
    tenant: string,
    options: { name?: string } = {},
  ): Promise<{ key: string; record: ApiKeyRecord }> {
    const record = newKeyRecord(tenant, options);
    const key = generateApiKey();
    await this.#query(
      `INSERT INTO arbor_api_keys (id, tenant, name, key_hash, created_at)
       VALUES (?, ?, ?, ?, ?)`,
      [
        record.id,
        record.tenant,
        record.name,
        await hashApiKey(key),
        record.createdAt,
      ],
    );
    return { key, record };
  }

  async list(): Promise<ApiKeyRecord[]> {
    const rows = await this.#query<KeyRow>(
      `SELECT id, tenant, name, created_at FROM arbor_api_keys ORDER BY created_at, id`,
    );
    return rows.map((row) => ({
      id: row.id,
      tenant: row.tenant,
      name: row.name,
      createdAt: row.created_at,
    }));
  }

  async revoke(id: string): Promise<boolean> {
    const rows = await this.#query(
      `DELETE FROM arbor_api_keys WHERE id = ? RETURNING id`,
      [id],
    );
    return rows.length > 0;
  }

  async verify(key: string): Promise<string | null> {
    if (!looksLikeApiKey(key)) return null;
    const [row] = await this.#query<{ tenant: string }>(
      `SELECT tenant FROM arbor_api_keys WHERE key_hash = ?`,
      [await hashApiKey(key)],
    );
    return row?.tenant ?? null;
  }

  async hasKeys(): Promise<boolean> {
    return (
      (await this.#query(`SELECT 1 FROM arbor_api_keys LIMIT 1`)).length > 0
    );
  }

  // --- Internal helpers ---

  async #query<Row = Record<string, unknown>>(
    sql: string,
    params: unknown[] = [],
  ): Promise<Row[]> {
    this.#ready ??= this.#db
      .query(POSTGRES_API_KEYS_SQL)
      .catch((error: unknown) => {
        this.#ready = undefined;
        throw error;
      });
    await this.#ready;
    return this.#db.query<Row>(sql, params);
  }
}
