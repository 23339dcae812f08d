/**
 * A PostgreSQL database as a whole (the `Backend` contract): its registry, sessions, erase,
 * embeddings, change feed and search-index settings over one client. One `Backend` per client object, so every caller agrees on its
 * identity. Erase loads on first use.
 */
import type { Backend } from "../../session/contracts/backend.js";
import { lazyApiKeys } from "../../session/state/lazy-api-keys.js";
import { postgresChangeFeed } from "./postgres-changes.js";
import { checkPostgresClient, type PostgresClient } from "./postgres-client.js";
import { postgresEmbeddings } from "./postgres-embedding-access.js";
import { PostgresSessionRegistry } from "./postgres-registry.js";
import { PostgresSessionProvider } from "./postgres-session-provider.js";
import { lazyStreams } from "../../session/state/lazy-streams.js";
import { StoreSlot, storeRuntime } from "../../session/state/store-runtime.js";

/** The backend over a `pg` Pool or Client, a postgres.js `sql`, or an `execute` connection. */
export function postgresBackend(client: PostgresClient): Backend {
  checkPostgresClient(client);
  return storeRuntime(client).own(BACKEND, () => createBackend(client));
}

// --- Internal helpers ---

/** One `Backend` per client: its lazily loaded capabilities are loaded once for every caller. */
const BACKEND = new StoreSlot<Backend>("postgres backend");

function createBackend(client: PostgresClient): Backend {
  let registry: PostgresSessionRegistry | undefined;
  // Its sessions' appends touch the registry row in the insert statement (docs/postgres.md).
  const root = new PostgresSessionProvider(client, "", { touchRegistry: true });
  // Every capability, checked by `satisfies`.
  return {
    name: "postgres",
    identity: client,
    get registry() {
      return (registry ??= new PostgresSessionRegistry(client));
    },
    session: (sessionId) => root.forSession(sessionId),
    erase: {
      eraseTarget: async (target, { dryRun, pending }) => {
        const { erasePostgresTarget } = await import("./postgres-erase.js");
        return erasePostgresTarget(client, target, dryRun, pending);
      },
    },
    embeddings: postgresEmbeddings(client),
    apiKeys: lazyApiKeys(async () => {
      const { PostgresApiKeyStore } = await import("./postgres-api-keys.js");
      return new PostgresApiKeyStore(client);
    }),
    changes: postgresChangeFeed(client),
    streams: lazyStreams(async () => {
      const { postgresStreams } = await import("./postgres-streams.js");
      return postgresStreams(client);
    }),
    searchIndex: {
      settings: async () =>
        (
          await import("./postgres-search-index.js")
        ).postgresSearchIndexSettings(client),
      configure: async (settings) =>
        (
          await import("./postgres-search-index.js")
        ).configurePostgresSearchIndex(client, settings),
    },
  } satisfies Required<Backend>;
}
