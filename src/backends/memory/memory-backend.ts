/**
 * The in-memory store as a whole (the `Backend` contract): its registry, sessions, erase,
 * embeddings, API keys, change feed and search-index settings. One `Backend` per `MemoryStore`, so every caller agrees on
 * its identity.
 */
import type { Backend } from "../../session/contracts/backend.js";
import { lazyApiKeys } from "../../session/state/lazy-api-keys.js";
import { InMemorySessionProvider } from "./memory-session-provider.js";
import { memoryChangeFeed } from "./memory-changes.js";
import { memoryEmbeddings } from "./memory-embedding-access.js";
import { InMemorySessionRegistry } from "./memory-registry.js";
import { MemoryStore } from "./memory-store.js";
import { lazyStreams } from "../../session/state/lazy-streams.js";
import { StoreSlot, storeRuntime } from "../../session/state/store-runtime.js";
import { memorySearchIndex } from "./memory-search-index.js";

/** The backend over `store` (a new, empty store when none is given). */
export function memoryBackend(store: MemoryStore = new MemoryStore()): Backend {
  return storeRuntime(store).own(BACKEND, () => createBackend(store));
}

// --- Internal helpers ---

/** One `Backend` per store: its lazily loaded capabilities are loaded once for every caller. */
const BACKEND = new StoreSlot<Backend>("memory backend");

function createBackend(store: MemoryStore): Backend {
  let registry: InMemorySessionRegistry | undefined;
  return {
    name: "memory",
    identity: store,
    get registry() {
      return (registry ??= new InMemorySessionRegistry(store));
    },
    session: (sessionId) => new InMemorySessionProvider({ sessionId }, store),
    erase: {
      eraseTarget: async (target, { dryRun, pending }) => {
        const { eraseMemoryTarget } = await import("./memory-erase.js");
        return eraseMemoryTarget(store, target, dryRun, pending);
      },
    },
    embeddings: memoryEmbeddings(store),
    apiKeys: lazyApiKeys(async () => {
      const { InMemoryApiKeyStore } = await import("./memory-api-keys.js");
      return new InMemoryApiKeyStore();
    }),
    changes: memoryChangeFeed(store),
    streams: lazyStreams(async () => {
      const { memoryStreams } = await import("./memory-streams.js");
      return memoryStreams(store);
    }),
    searchIndex: memorySearchIndex(store),
  };
}
