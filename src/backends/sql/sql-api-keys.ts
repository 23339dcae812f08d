import { mapSqlErrors } from "./sql-errors.js";
import type { SqlProvider } from "../../session/contracts/sql-provider.js";
import type {
  ApiKeyRecord,
  ApiKeyTable,
} from "../../session/contracts/api-keys.js";
import { TableApiKeyStore } from "../../session/keys/api-keys.js";

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
export class SqlApiKeyStore extends TableApiKeyStore {
  constructor(store: SqlProvider) {
    super(sqlKeyTable(store));
  }
}

// --- Internal helpers ---

function sqlKeyTable(store: SqlProvider): ApiKeyTable {
  let ready = false;
  const table = (): SqlProvider => {
    if (!ready) {
      store.sql`CREATE TABLE IF NOT EXISTS arbor_api_keys (
        id TEXT PRIMARY KEY,
        tenant TEXT NOT NULL,
        name TEXT,
        key_hash TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL
      )`;
      ready = true;
    }
    return store;
  };
  // What leaves a method is Arbor's error, the store's own as its cause (sql-errors.ts).
  return mapSqlErrors<ApiKeyTable>({
    insert: (record, keyHash) => {
      table()
        .sql`INSERT INTO arbor_api_keys (id, tenant, name, key_hash, created_at)
        VALUES (${record.id}, ${record.tenant}, ${record.name}, ${keyHash}, ${record.createdAt})`;
    },
    list: () =>
      table()
        .sql<KeyRow>`SELECT id, tenant, name, created_at FROM arbor_api_keys
          ORDER BY created_at, id`.map(toRecord),
    delete: (id) =>
      table().sql<{ id: string }>`
        DELETE FROM arbor_api_keys WHERE id = ${id} RETURNING id`.length > 0,
    tenantOf: (keyHash) =>
      table().sql<{ tenant: string }>`
        SELECT tenant FROM arbor_api_keys WHERE key_hash = ${keyHash}`[0]
        ?.tenant ?? null,
    any: () => table().sql`SELECT 1 FROM arbor_api_keys LIMIT 1`.length > 0,
  });
}

function toRecord(row: KeyRow): ApiKeyRecord {
  return {
    id: row.id,
    tenant: row.tenant,
    name: row.name,
    createdAt: row.created_at,
  };
}
