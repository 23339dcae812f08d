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

/** API keys in this process only: for tests and throwaway servers. */
export class InMemoryApiKeyStore implements ApiKeyStore {
  /** Records by key hash. */
  readonly #byHash = new Map<string, ApiKeyRecord>();

  async create(
    tenant: string,
    options: { name?: string } = {},
  ): Promise<{ key: string; record: ApiKeyRecord }> {
    const record = newKeyRecord(tenant, options);
    const key = generateApiKey();
    this.#byHash.set(await hashApiKey(key), record);
    return { key, record: { ...record } };
  }

  async list(): Promise<ApiKeyRecord[]> {
    return [...this.#byHash.values()].map((record) => ({ ...record }));
  }

  async revoke(id: string): Promise<boolean> {
    for (const [hash, record] of this.#byHash) {
      if (record.id === id) return this.#byHash.delete(hash);
    }
    return false;
  }

  async verify(key: string): Promise<string | null> {
    if (!looksLikeApiKey(key)) return null;
    return this.#byHash.get(await hashApiKey(key))?.tenant ?? null;
  }

  async hasKeys(): Promise<boolean> {
    return this.#byHash.size > 0;
  }
}
