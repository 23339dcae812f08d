import type { ApiKeyStore } from "../contracts/api-keys.js";

/**
 * A backend's `ApiKeyStore` whose code loads on first call: a Durable Object or an app that never
 * serves HTTP with keys does not carry the key tables' code. A failed load is retried.
 */
export function lazyApiKeys(load: () => Promise<ApiKeyStore>): ApiKeyStore {
  let loaded: Promise<ApiKeyStore> | undefined;
  const real = () =>
    (loaded ??= load().catch((error: unknown) => {
      loaded = undefined;
      throw error;
    }));
  return {
    create: async (tenant, options) => (await real()).create(tenant, options),
    list: async () => (await real()).list(),
    revoke: async (id) => (await real()).revoke(id),
    verify: async (key) => (await real()).verify(key),
    hasKeys: async () => (await real()).hasKeys(),
  };
}
