import type { SessionProvider } from "./provider.js";

/**
 * What a provider can do beyond the required contract, each named once with the optional members
 * that give it (docs/custom-providers.md). The one declaration: the types below, the Session's
 * "not supported" checks (`hasCapability`) and the conformance suite's method-based flags
 * (`arbor-memory/testing`, `ProviderCapabilities`) all read it, so a provider declares a
 * capability by having its members, and nowhere else.
 */
export const PROVIDER_CAPABILITIES = {
  /** Full-text search within the session (`session.search()`). */
  search: ["searchMessages"],
  /** A byte-budgeted suffix of a path (`session.getRecentHistory()` in one read). */
  recentHistory: ["getRecentHistory"],
  /** Row sizes on a path without content (`session.getHistoryRowStats()`). */
  rowStats: ["getHistoryRowStats"],
  /** Deleting one overlay (`session.removeCompaction()`). */
  deleteCompaction: ["deleteCompaction"],
  /** Writable context blocks and block history stored beside the messages (auto-wiring). */
  contextBlocks: ["createContextProvider", "createBlockHistory"],
  /** Per-session settings, such as the `switchBranch()` pointer, that survive a restart. */
  config: ["getConfig", "setConfig"],
  /** Every message of a session, all branches (`exportSnapshot()`, `manager.fork()`). */
  snapshotExport: ["exportMessages"],
  /** Records written as they were (`importSnapshot()`, `manager.fork()`). */
  snapshotImport: ["importRecords"],
  /** `session.watch()`: committed writes from any process. */
  changeFeed: ["watchChanges"],
  /** `session.history()` of any length in bounded memory. */
  streamedHistory: ["getPathIds", "getMessagesByIds"],
} as const satisfies Record<string, ReadonlyArray<keyof SessionProvider>>;

/** The name of a capability in `PROVIDER_CAPABILITIES`. */
export type ProviderCapability = keyof typeof PROVIDER_CAPABILITIES;

/** A provider that has every member of `Capability`. */
export type ProviderWith<Capability extends ProviderCapability> =
  SessionProvider &
    Required<
      Pick<SessionProvider, (typeof PROVIDER_CAPABILITIES)[Capability][number]>
    >;

/** Whether `provider` has every member that gives `capability`. */
export function hasCapability<Capability extends ProviderCapability>(
  provider: SessionProvider,
  capability: Capability,
): provider is ProviderWith<Capability> {
  const members: ReadonlyArray<keyof SessionProvider> =
    PROVIDER_CAPABILITIES[capability];
  return members.every((name) => typeof provider[name] === "function");
}

/** Every capability of `provider`, by name. */
export function providerCapabilities(
  provider: SessionProvider,
): Record<ProviderCapability, boolean> {
  const entries = Object.keys(PROVIDER_CAPABILITIES).map((name) => {
    const capability = name as ProviderCapability;
    return [capability, hasCapability(provider, capability)] as const;
  });
  return Object.fromEntries(entries) as Record<ProviderCapability, boolean>;
}
