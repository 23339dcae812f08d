/** What a key's owner sees of it: never the key, never its hash. */
export interface ApiKeyRecord {
  id: string;
  /** The tenant the key acts as: the owner of every session it creates. */
  tenant: string;
  name: string | null;
  /** ISO-8601 UTC with milliseconds. */
  createdAt: string;
}

/** Anything that turns a bearer key into a tenant (`null` = rejected). */
export interface KeyVerifier {
  verify(key: string): Promise<string | null>;
}

/**
 * API keys (docs/server.md, "API keys"). Keys are `arbor_sk_` + 32 random bytes in base64url and
 * are shown once, by `create()`; only their SHA-256 is stored (a high-entropy key needs no slow
 * hash).
 */
export interface ApiKeyStore extends KeyVerifier {
  /** A new key for `tenant`: `key` is returned here and never again. */
  create(
    tenant: string,
    options?: { name?: string },
  ): Promise<{ key: string; record: ApiKeyRecord }>;
  /** Every key's record, oldest first. */
  list(): Promise<ApiKeyRecord[]>;
  /** Deletes a key; `false` for an unknown id. */
  revoke(id: string): Promise<boolean>;
  /** The key's tenant, or `null` for an unknown or revoked key. */
  verify(key: string): Promise<string | null>;
  /** Whether any key exists (the CLI refuses a public bind without one). */
  hasKeys(): Promise<boolean>;
}

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
    throw new TypeError("[arbor] [keys] The tenant must be a non-empty string");
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
