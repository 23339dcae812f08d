import type { MaybePromise } from "./types.js";

/**
 * API keys as a backend capability (docs/server.md, "API keys"): the records a key store keeps and
 * the store's contract. Each built-in backend offers a store (`Backend.apiKeys`); the server takes
 * any `KeyVerifier`.
 */
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

/**
 * Where a backend keeps its keys: one row per key, found by the key's SHA-256. This is all a
 * backend writes for API keys; `TableApiKeyStore` turns it into an `ApiKeyStore` and holds the
 * rules (the key's format, hashing, the tenant check, record ids and times), so every backend
 * keeps them alike.
 */
export interface ApiKeyTable {
  /** Stores a new key's record under its hash (never the key). */
  insert(record: ApiKeyRecord, keyHash: string): MaybePromise<void>;
  /** Every record, oldest first (by `createdAt`, then `id`). */
  list(): MaybePromise<ApiKeyRecord[]>;
  /** Deletes the record `id`; `false` when there was none. */
  delete(id: string): MaybePromise<boolean>;
  /** The tenant of the record stored under `keyHash`, or `null`. */
  tenantOf(keyHash: string): MaybePromise<string | null>;
  /** Whether any record exists. */
  any(): MaybePromise<boolean>;
}
