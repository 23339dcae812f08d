/**
 * A `sql` store as a whole (the `Backend` contract): its registry, sessions, erase, embeddings,
 * API keys, change feed and search-index settings. One `Backend` per store object, so every caller agrees on its
 * identity. Erase
 * loads on first use: a Durable Object that never erases does not carry it.
 */
import type { Backend } from "../../session/contracts/backend.js";
import type { ChangeFeedSource } from "../../session/contracts/changes.js";
import { watchSqlChanges } from "./sql-changes.js";
import { mapSqlErrors } from "./sql-errors.js";
import { ensureAgentSchema } from "./sql-schema.js";
import type { SqlProvider } from "../../session/contracts/sql-provider.js";
import { lazyApiKeys } from "../../session/state/lazy-api-keys.js";
import { sqlEmbeddings } from "./sql-embedding-access.js";
import { SqlSessionRegistry } from "./sql-registry.js";
import { AgentSessionProvider } from "./sql-session-provider.js";
import { lazyStreams } from "../../session/state/lazy-streams.js";
import { StoreSlot, storeRuntime } from "../../session/state/store-runtime.js";

/** The backend over a `sql` store: `openSqlite()`, a Durable Object, any `sql` tag. */
export function sqlBackend(agent: SqlProvider): Backend {
  return storeRuntime(agent).own(BACKEND, () => createBackend(agent));
}

// --- Internal helpers ---

/** The store's change feed, as its `Backend` declares it. */
function sqlChangeFeed(agent: SqlProvider): ChangeFeedSource {
  return mapSqlErrors<ChangeFeedSource>({
    watch(listener, scope) {
      ensureAgentSchema(agent);
      return watchSqlChanges(agent, scope, listener);
    },
  });
}

/** One `Backend` per store: its lazily loaded capabilities are loaded once for every caller. */
const BACKEND = new StoreSlot<Backend>("sql backend");

function createBackend(agent: SqlProvider): Backend {
  let registry: SqlSessionRegistry | undefined;
  return {
    name: "sql",
    identity: agent,
    get registry() {
      return (registry ??= new SqlSessionRegistry(agent));
    },
    session: (sessionId) => new AgentSessionProvider(agent, sessionId),
    erase: mapSqlErrors<NonNullable<Backend["erase"]>>({
      eraseTarget: async (target, { dryRun, pending }) => {
        const { eraseSqlTarget } = await import("./sql-erase.js");
        return eraseSqlTarget(agent, target, dryRun, pending);
      },
    }),
    embeddings: sqlEmbeddings(agent),
    apiKeys: lazyApiKeys(async () => {
      const { SqlApiKeyStore } = await import("./sql-api-keys.js");
      return new SqlApiKeyStore(agent);
    }),
    changes: sqlChangeFeed(agent),
    streams: lazyStreams(async () => {
      const { sqlStreams } = await import("./sql-streams.js");
      return sqlStreams(agent);
    }),
    searchIndex: mapSqlErrors<NonNullable<Backend["searchIndex"]>>({
      settings: async () =>
        (await import("./sql-search-index.js")).sqlSearchIndexSettings(agent),
      configure: async (settings) =>
        (await import("./sql-search-index.js")).configureSqlSearchIndex(
          agent,
          settings,
        ),
    }),
  };
}
