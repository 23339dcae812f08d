import { appendRaw } from "./fixtures.js";
import {
  REQUIRED_PROVIDER_METHODS,
  type SessionProvider,
} from "../session/contracts/provider.js";
import type {
  CompactionMeta,
  HistoryRowStat,
  MatchMode,
  PrefixMode,
  RecentHistoryResult,
  SearchResult,
  SessionMessage,
  StoredCompaction,
} from "../session/contracts/types.js";

/**
 * The surface most cases run against: the `Session` API. A `Session` is one as it is; a raw
 * provider is adapted by `providerSubject()`, so the same case checks both layers.
 */
export interface Subject {
  appendMessage(
    message: SessionMessage,
    parentId?: string | null,
  ): Promise<unknown>;
  updateMessage(message: SessionMessage): Promise<void>;
  deleteMessages(ids: readonly string[]): Promise<void>;
  clearMessages(): Promise<void>;
  getMessage(id: string): Promise<SessionMessage | null>;
  getHistory(leafId?: string | null): Promise<SessionMessage[]>;
  getLatestLeaf(): Promise<SessionMessage | null>;
  getBranches(messageId: string): Promise<SessionMessage[]>;
  getPathLength(leafId?: string | null): Promise<number>;
  countMessages(): Promise<number>;
  getRecentHistory(
    maxContentBytes: number,
    minRecentMessages?: number,
  ): Promise<RecentHistoryResult>;
  getHistoryRowStats(): Promise<HistoryRowStat[] | null>;
  addCompaction(
    summary: string,
    fromMessageId: string,
    toMessageId: string,
    meta?: CompactionMeta,
  ): Promise<StoredCompaction>;
  getCompactions(): Promise<StoredCompaction[]>;
  removeCompaction(id: string): Promise<boolean>;
  search(
    query: string,
    options?: {
      limit?: number;
      match?: MatchMode;
      since?: string;
      until?: string;
      prefix?: PrefixMode;
    },
  ): Promise<SearchResult[]>;
}

/** The raw provider seen through the `Session` method names. Every answer is awaited. */
export function providerSubject(provider: SessionProvider): Subject {
  return {
    appendMessage: async (message, parentId) =>
      parentId === undefined
        ? appendRaw(provider, message)
        : appendRaw(provider, message, parentId),
    updateMessage: async (message) => provider.updateMessage(message),
    deleteMessages: async (ids) => provider.deleteMessages(ids),
    clearMessages: async () => provider.clearMessages(),
    getMessage: async (id) => provider.getMessage(id),
    getHistory: async (leafId) => provider.getHistory(leafId),
    getLatestLeaf: async () => provider.getLatestLeaf(),
    getBranches: async (messageId) => provider.getBranches(messageId),
    getPathLength: async (leafId) => provider.getPathLength(leafId),
    // Optional: without it the count is the length of the export, as in the Session.
    countMessages: async () => {
      if (provider.countMessages) return provider.countMessages();
      if (!provider.exportMessages)
        throw new Error(
          "[arbor conformance] no countMessages() or exportMessages(): declare snapshots: false",
        );
      return (await provider.exportMessages()).length;
    },
    getRecentHistory: async (maxContentBytes, minRecentMessages) =>
      required(provider, "getRecentHistory", "recentHistory").call(
        provider,
        undefined,
        maxContentBytes,
        minRecentMessages,
      ),
    getHistoryRowStats: async () =>
      required(provider, "getHistoryRowStats", "rowStats").call(provider),
    addCompaction: async (summary, fromMessageId, toMessageId, meta) =>
      meta === undefined
        ? provider.addCompaction(summary, fromMessageId, toMessageId)
        : provider.addCompaction(summary, fromMessageId, toMessageId, meta),
    getCompactions: async () => provider.getCompactions(),
    removeCompaction: async (id) =>
      required(provider, "deleteCompaction", "deleteCompaction").call(
        provider,
        id,
      ),
    search: async (query, options) => {
      const searchMessages = required(provider, "searchMessages", "search");
      const { limit, ...text } = options ?? {};
      if (Object.keys(text).length > 0)
        return searchMessages.call(provider, query, limit, text);
      return limit === undefined
        ? searchMessages.call(provider, query)
        : searchMessages.call(provider, query, limit);
    },
  };
}

/**
 * A provider that delegates the required members and, of the optional ones, only `keep`: used to
 * check the Session's fallbacks and "not supported" errors on every backend. It keeps the store
 * identity and session id, so the Session's per-store append lock is unchanged.
 */
export function withoutOptionalMembers(
  provider: SessionProvider,
  keep: ReadonlyArray<keyof SessionProvider> = [],
): SessionProvider {
  const restricted: Partial<Record<keyof SessionProvider, unknown>> = {
    storeIdentity: provider.storeIdentity ?? provider,
    sessionId: provider.sessionId,
  };
  for (const name of [...REQUIRED_PROVIDER_METHODS, ...keep]) {
    if (typeof provider[name] === "function") {
      restricted[name] = (...args: unknown[]) =>
        (provider[name] as (...args: unknown[]) => unknown).apply(
          provider,
          args,
        );
    }
  }
  return restricted as SessionProvider;
}

// --- Internal helpers ---

type OptionalMethod =
  | "getRecentHistory"
  | "getHistoryRowStats"
  | "deleteCompaction"
  | "searchMessages";

function required<Name extends OptionalMethod>(
  provider: SessionProvider,
  name: Name,
  flag: string,
): NonNullable<SessionProvider[Name]> {
  const method = provider[name];
  if (typeof method !== "function") {
    throw new Error(
      `[arbor-memory/testing] capabilities.${flag} is true but the provider has no ${name}(); set ${flag}: false in the factory's capabilities`,
    );
  }
  return method;
}

/**
 * The same provider, recording the name of every method the caller reaches (`calls`, in call
 * order). Each call goes to the real provider unchanged; used to check that the Session reaches a
 * member the provider offers instead of a fallback.
 */
export function spyingProvider(provider: SessionProvider): {
  provider: SessionProvider;
  calls: string[];
} {
  const calls: string[] = [];
  const spy = new Proxy(provider, {
    get(target, name) {
      const member: unknown = Reflect.get(target, name, target);
      if (typeof member !== "function") return member;
      return (...args: unknown[]) => {
        calls.push(String(name));
        return (member as (...args: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { provider: spy, calls };
}
