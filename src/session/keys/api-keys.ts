import type {
  ApiKeyRecord,
  ApiKeyStore,
  ApiKeyTable,
} from "../contracts/api-keys.js";
import { invalidArgument } from "../errors/index.js";

/** Every key starts with this, so a leaked one is easy to find in code and logs. */
export const API_KEY_PREFIX = "arbor_sk_";

/** A new key: the prefix and 32 bytes from `crypto.getRandomValues` in base64url. */
export function generateApiKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  const base64url = btoa(binary)
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");
  return API_KEY_PREFIX + base64url;
}

/** The stored form of a key: its SHA-256, in hex. */
export async function hashApiKey(key: string): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(key),
  );
  return [...new Uint8Array(digest)]
    .map((byte) => byte.toString(16).padStart(2, "0"))
    .join("");
}

/** A new record's fields; the tenant must be a non-empty string. */
export function newKeyRecord(
  tenant: string,
  options: { name?: string } = {},
): ApiKeyRecord {
  if (typeof tenant !== "string" || tenant.trim() === "")
    throw invalidArgument("[keys] The tenant must be a non-empty string");
  return {
    id: `key_${crypto.randomUUID()}`,
    tenant,
    name: options.name ?? null,
    createdAt: new Date().toISOString(),
  };
}

/** Whether a string can be a key at all (cheap check before hashing). */
export function looksLikeApiKey(key: string): boolean {
  return (
    typeof key === "string" &&
    key.startsWith(API_KEY_PREFIX) &&
    key.length < 200
  );
}

/**
 * An `ApiKeyStore` over a backend's `ApiKeyTable`: the one place the key rules live. A key is
 * generated here, shown once by `create()` and stored only as its SHA-256; `verify()` rejects
 * what cannot be a key before hashing it. Each backend's store (`InMemoryApiKeyStore`,
 * `SqlApiKeyStore`, `PostgresApiKeyStore`) is this over its own table.
 */
export class TableApiKeyStore implements ApiKeyStore {
  readonly #table: ApiKeyTable;

  constructor(table: ApiKeyTable) {
    this.#table = table;
  }

  async create(
    tenant: string,
    options: { name?: string } = {},
  ): Promise<{ key: string; record: ApiKeyRecord }> {
    const record = newKeyRecord(tenant, options);
    const key = generateApiKey();
    await this.#table.insert(record, await hashApiKey(key));
    return { key, record };
  }

  async list(): Promise<ApiKeyRecord[]> {
    return this.#table.list();
  }

  async revoke(id: string): Promise<boolean> {
    return this.#table.delete(id);
  }

  async verify(key: string): Promise<string | null> {
    if (!looksLikeApiKey(key)) return null;
    return this.#table.tenantOf(await hashApiKey(key));
  }

  async hasKeys(): Promise<boolean> {
    return this.#table.any();
  }
}
