// API keys kept in the store (`ApiKeyStore`): one document per key, under the SHA-256 of the key
// (`key:<hash>`); the key itself is shown once, by `create()`, and never stored.
import {
  generateApiKey,
  hashApiKey,
  type ApiKeyRecord,
  type ApiKeyStore,
} from "arbor-memory/server";
import { ArborError } from "arbor-memory/session";
import type { KvStore } from "./kv-store.js";

export class KvApiKeyStore implements ApiKeyStore {
  constructor(private readonly store: KvStore) {}

  async create(
    tenant: string,
    options: { name?: string } = {},
  ): Promise<{ key: string; record: ApiKeyRecord }> {
    if (typeof tenant !== "string" || tenant.trim() === "")
      throw new ArborError(
        "INVALID_ARGUMENT",
        "[kv keys] The tenant must be a non-empty string",
      );
    const record: ApiKeyRecord = {
      id: `key_${crypto.randomUUID()}`,
      tenant,
      name: options.name ?? null,
      createdAt: new Date().toISOString(),
    };
    const key = generateApiKey();
    this.store.write(`key:${await hashApiKey(key)}`, record);
    return { key, record };
  }

  async list(): Promise<ApiKeyRecord[]> {
    return this.store
      .keys("key:")
      .map((key) => this.store.read<ApiKeyRecord>(key)!)
      .sort((a, b) => (a.createdAt < b.createdAt ? -1 : 1));
  }

  async revoke(id: string): Promise<boolean> {
    for (const key of this.store.keys("key:"))
      if (this.store.read<ApiKeyRecord>(key)?.id === id)
        return this.store.delete(key);
    return false;
  }

  async verify(key: string): Promise<string | null> {
    if (typeof key !== "string" || key.length > 200) return null;
    return (
      this.store.read<ApiKeyRecord>(`key:${await hashApiKey(key)}`)?.tenant ??
      null
    );
  }

  async hasKeys(): Promise<boolean> {
    return this.store.keys("key:").length > 0;
  }
}
