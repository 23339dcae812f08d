import type {
  ApiKeyRecord,
  ApiKeyTable,
} from "../../session/contracts/api-keys.js";
import { TableApiKeyStore } from "../../session/keys/api-keys.js";

/** API keys in this process only: for tests and throwaway servers. */
export class InMemoryApiKeyStore extends TableApiKeyStore {
  constructor() {
    super(memoryKeyTable());
  }
}

// --- Internal helpers ---

/** Records by key hash; copies go in and out, so a caller's edit never reaches the table. */
function memoryKeyTable(): ApiKeyTable {
  const byHash = new Map<string, ApiKeyRecord>();
  return {
    insert: (record, keyHash) => {
      byHash.set(keyHash, { ...record });
    },
    list: () => [...byHash.values()].map((record) => ({ ...record })),
    delete: (id) => {
      for (const [hash, record] of byHash) {
        if (record.id === id) return byHash.delete(hash);
      }
      return false;
    },
    tenantOf: (keyHash) => byHash.get(keyHash)?.tenant ?? null,
    any: () => byHash.size > 0,
  };
}
