/**
 * The built-in stores a lone Session knows by name, and only these: a `sql` store handed to
 * `Session.create()` becomes the sql backend's provider, and a provider without block history
 * keeps its versions in memory. The SessionManager's stores are in manager/manager-backend.ts;
 * everything else reaches a store through the contracts.
 */
import type { BlockHistoryStore } from "./contracts/block-history.js";
import type { SessionProvider } from "./contracts/provider.js";
import type { SqlProvider } from "./contracts/sql-provider.js";
import { AgentSessionProvider } from "../backends/sql/sql-session-provider.js";

/** The provider of `Session.create(sqlStore)`: the store, not yet scoped to a session. */
export function providerForSqlStore(agent: SqlProvider): SessionProvider {
  return new AgentSessionProvider(agent);
}

/**
 * Block history for a provider that keeps none (`createBlockHistory` absent), loaded with its
 * first use: the built-in providers keep their own, so a Worker never carries this one.
 */
export function inProcessBlockHistory(): BlockHistoryStore {
  let loaded: Promise<BlockHistoryStore> | undefined;
  const store = () =>
    (loaded ??= import("../backends/memory/memory-block-history.js").then(
      ({ InMemoryBlockHistory }) => new InMemoryBlockHistory(),
    ));
  return {
    record: async (label, entry) => (await store()).record(label, entry),
    list: async (label) => (await store()).list(label),
    clear: async () => (await store()).clear?.(),
  };
}
