/**
 * The block history of a provider that keeps none: its versions in memory. What `Session.create()`
 * and `SessionManager.create()` take is mapped in seed-targets.ts; everything else reaches a store
 * through the contracts.
 */
import type { BlockHistoryStore } from "../contracts/block-history.js";

/**
 * Block history for a provider that keeps none (`createBlockHistory` absent), loaded with its
 * first use: the built-in providers keep their own, so a Worker never carries this one.
 */
export function inProcessBlockHistory(): BlockHistoryStore {
  let loaded: Promise<BlockHistoryStore> | undefined;
  const store = () =>
    (loaded ??= import("../../backends/memory/memory-block-history.js").then(
      ({ InMemoryBlockHistory }) => new InMemoryBlockHistory(),
    ));
  return {
    record: async (label, entry) => (await store()).record(label, entry),
    list: async (label) => (await store()).list(label),
    clear: async () => (await store()).clear?.(),
  };
}
