// API keys kept in the store: one document per key, under the SHA-256 of the key
// (`key:<hash>`). The backend supplies only the table (`ApiKeyTable`); `TableApiKeyStore` holds
// the rules every backend shares (the key shown once by `create()` and never stored, the tenant
// check, what `verify()` refuses before hashing).
import {
  TableApiKeyStore,
  type ApiKeyRecord,
  type ApiKeyTable,
} from "arbor-memory/server";
import type { KvStore } from "./kv-store.js";

export class KvApiKeyStore extends TableApiKeyStore {
  constructor(store: KvStore) {
    super(kvKeyTable(store));
  }
}

function kvKeyTable(store: KvStore): ApiKeyTable {
  const records = () =>
    store.keys("key:").map((key) => ({
      key,
      record: store.read<ApiKeyRecord>(key)!,
    }));
  return {
    insert: (record, keyHash) => store.write(`key:${keyHash}`, record),
    list: () =>
      records()
        .map(({ record }) => record)
        .sort((a, b) =>
          a.createdAt === b.createdAt
            ? a.id < b.id
              ? -1
              : 1
            : a.createdAt < b.createdAt
              ? -1
              : 1,
        ),
    delete: (id) => {
      const found = records().find(({ record }) => record.id === id);
      return found ? store.delete(found.key) : false;
    },
    tenantOf: (keyHash) =>
      store.read<ApiKeyRecord>(`key:${keyHash}`)?.tenant ?? null,
    any: () => store.keys("key:").length > 0,
  };
}
