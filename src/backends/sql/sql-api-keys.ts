import { mapSqlErrors } from "./sql-errors.js";
import type { SqlProvider } from "../../session/contracts/sql-provider.js";
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

interface KeyRow {
  id: string;
  tenant: string;
  name: string | null;
  created_at: string;
}

/**
 * API keys in the `arbor_api_keys` table of a `sql` store: `openSqlite()`, a Durable Object's
 * SQLite. The table is created on first use.
 */
export class SqlApiKeyStore implements ApiKeyStore {
  #ready = false;

  constructor(private readonly store: SqlProvider) {}

  async create(
    tenant: string,
    options: { name?: string } = {},
  ): Promise<{ key: string; record: ApiKeyRecord }> {
    const record = newKeyRecord(tenant, options);
    const key = generateApiKey();
    const hash = await hashApiKey(key);
    this.#table()
      .sql`INSERT INTO arbor_api_keys (id, tenant, name, key_hash, created_at)
      VALUES (${record.id}, ${record.tenant}, ${record.name}, ${hash}, ${record.createdAt})`;
    return { key, record };
  }

  async list(): Promise<ApiKeyRecord[]> {
    return this.#table()
      .sql<KeyRow>`SELECT id, tenant, name, created_at FROM arbor_api_keys
        ORDER BY created_at, id`.map(toRecord);
  }

  async revoke(id: string): Promise<boolean> {
    const deleted = this.#table().sql<{ id: string }>`
      DELETE FROM arbor_api_keys WHERE id = ${id} RETURNING id`;
    return deleted.length > 0;
  }

  async verify(key: string): Promise<string | null> {
    if (!looksLikeApiKey(key)) return null;
    const hash = await hashApiKey(key);
    const [row] = this.#table().sql<{ tenant: string }>`
      SELECT tenant FROM arbor_api_keys WHERE key_hash = ${hash}`;
    return row?.tenant ?? null;
  }

  async hasKeys(): Promise<boolean> {
    return this.#table().sql`SELECT 1 FROM arbor_api_keys LIMIT 1`.length > 0;
  }

  // --- Internal helpers ---

  #table(): SqlProvider {
    if (!this.#ready) {
      this.store.sql`CREATE TABLE IF NOT EXISTS arbor_api_keys (
        id TEXT PRIMARY KEY,
        tenant TEXT NOT NULL,
        name TEXT,
        key_hash TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL
      )`;
      this.#ready = true;
    }
    return this.store;
  }
}

function toRecord(row: KeyRow): ApiKeyRecord {
  return {
    id: row.id,
    tenant: row.tenant,
    name: row.name,
    createdAt: row.created_at,
  };
}

// What leaves a method is Arbor's error, the store's own as its cause (sql-errors.ts).
mapSqlErrors(SqlApiKeyStore.prototype);
