// The fourth backend: a key-value document store as a whole (`Backend`), every member declared.
// What it proves: a store outside Arbor's sources, written against the public entries only, gets
// the Session, the SessionManager, the HTTP server and MCP by implementing the contract.
import type { Backend, BackendSearchIndex } from "arbor-memory/session";
import { KvApiKeyStore } from "./kv-api-keys.js";
import { kvErase } from "./kv-erase.js";
import { KvSessionRegistry } from "./kv-registry.js";
import { KvSessionProvider } from "./kv-session-provider.js";
import { KvStore } from "./kv-store.js";
import { kvStreams } from "./kv-streams.js";

/** The backend over `store` (a new, empty one when none is given). */
export function kvBackend(store: KvStore = new KvStore()): Backend {
  return {
    name: "kv",
    identity: store,
    registry: new KvSessionRegistry(store),
    session: (sessionId) => new KvSessionProvider(store, sessionId),
    erase: kvErase(store),
    embeddings: store.embeddings,
    apiKeys: new KvApiKeyStore(store),
    changes: {
      watch: (listener, scope) => store.changes.watch(listener, scope),
    },
    streams: kvStreams(store),
    searchIndex: kvSearchIndex(store),
  };
}

/** The search-index settings: the index is the engine's, so are its settings. */
function kvSearchIndex(store: KvStore): BackendSearchIndex {
  const engine = store.engine.searchIndex!;
  return {
    settings: () => engine.settings(),
    configure: (settings) => store.exclusive(() => engine.configure(settings)),
  };
}
