/** `manager.search()` with modes across the sessions of a registry (docs/search.md). */
import type { SearchResult, StoredCompaction } from "../contracts/types.js";
import type { RegistrySearchOptions } from "../contracts/registry.js";
import {
  normalizeSearchLimit,
  rankWindow,
  recallRankWindow,
} from "../core/search-limit.js";
import { queryTerms } from "../core/search-terms.js";
import type { EmbeddingHandle } from "../embeddings/embedding-handle.js";
import {
  checkRecallOptions,
  interleave,
  recall,
  type RecallItem,
  type ResolvedItem,
} from "../embeddings/recall.js";
import {
  readMessages,
  resolveMessage,
  resolveOverlay,
} from "../embeddings/session-recall.js";
import type { RecallResult } from "../embeddings/types.js";
import type { BackendEmbeddings } from "../contracts/embedding-store.js";
import { requireEmbeddings } from "../embeddings/embedding-stores.js";
import { requireBackend, type ManagerHost } from "./manager-backend.js";
import type { ManagerSearchOptions } from "./manager-options.js";
import { registrySearchOptions, searchSessions } from "./manager-search.js";

/** The embeddings of the manager's store; `NOT_SUPPORTED` when it has none. */
export function storeEmbeddings(
  host: ManagerHost,
  caller = "withEmbeddings()",
): BackendEmbeddings {
  return requireEmbeddings(requireBackend(host, caller).embeddings, caller);
}

/** Ranks messages and overlay summaries (by their words, and by meaning) of the registry's sessions. */
export async function searchManagerRecall(
  host: ManagerHost,
  handle: EmbeddingHandle | null,
  query: string,
  options: ManagerSearchOptions,
): Promise<RecallResult[]> {
  const { mode } = checkRecallOptions({ mode: options.mode }, handle !== null);
  const checked = registrySearchOptions(options);
  if (queryTerms(query).length === 0) return [];
  const limit = normalizeSearchLimit(options.limit);
  const index = handle ? await handle.index(storeEmbeddings(host)) : null;
  return recall({
    query,
    mode,
    limit,
    index,
    withSessionId: true,
    text: async () => {
      const window = {
        ...options,
        limit: rankWindow(limit),
        rankWindow: recallRankWindow(limit),
      };
      const messages = (await searchSessions(host.registry, query, window)).map(
        (hit: SearchResult) => ({
          sessionId: hit.sessionId ?? "",
          kind: "message" as const,
          id: hit.id,
          hit,
        }),
      );
      return interleave(
        messages,
        await searchSummaries(host, query, {
          ...checked,
          limit: window.limit,
        }),
      );
    },
    semantic: { sessionIds: await sessionScope(host, options) },
    resolve: (items) => resolveAcrossSessions(host, items),
  });
}

// --- Internal helpers ---

/** Overlays found by their summary, newest first; none on a registry without the method. */
async function searchSummaries(
  host: ManagerHost,
  query: string,
  options: RegistrySearchOptions,
): Promise<RecallItem[]> {
  if (!host.registry.searchSummaries) return [];
  const hits = await host.registry.searchSummaries(query, options);
  return hits.map((hit) => ({ ...hit, kind: "summary" as const }));
}

/** The session ids a search may return (`null`: all), from `sessionIds` and `ownerId`. */
async function sessionScope(
  host: ManagerHost,
  options: ManagerSearchOptions,
): Promise<string[] | null> {
  let ids: string[] | null = options.sessionIds
    ? [...options.sessionIds]
    : null;
  if (options.ownerId !== undefined) {
    const owned = new Set<string>();
    for (
      let page = await host.registry.list({
        ownerId: options.ownerId,
        limit: 1000,
      });
      ;
    ) {
      for (const info of page) owned.add(info.id);
      const last = page.at(-1);
      if (page.length < 1000 || !last) break;
      page = await host.registry.list({
        ownerId: options.ownerId,
        limit: 1000,
        after: last,
      });
    }
    ids = ids === null ? [...owned] : ids.filter((id) => owned.has(id));
  }
  // Sessions deleted from the registry keep no searchable rows, but be strict.
  return ids;
}

async function resolveAcrossSessions(
  host: ManagerHost,
  items: RecallItem[],
): Promise<Array<ResolvedItem | null>> {
  const bySession = new Map<string, RecallItem[]>();
  for (const item of items) {
    const list = bySession.get(item.sessionId) ?? [];
    list.push(item);
    bySession.set(item.sessionId, list);
  }
  const resolved = new Map<RecallItem, ResolvedItem | null>();
  const ids = [...bySession.keys()];
  const registered = new Set(
    (host.registry.getMany
      ? await host.registry.getMany(ids)
      : await Promise.all(ids.map(async (id) => host.registry.get(id)))
    ).flatMap((info) => (info ? [info.id] : [])),
  );
  // The hit sessions are read a few at a time, not one after another: over a pool their reads
  // overlap (each is a branch walk and a message read, about 2.5 ms on PostgreSQL, so 20 sessions
  // in a row cost 50 ms); a synchronous store reads them in turn as before.
  await eachConcurrently(ids, RESOLVE_CONCURRENCY, async (sessionId) => {
    const group = bySession.get(sessionId)!;
    if (!registered.has(sessionId)) {
      for (const item of group) resolved.set(item, null);
      return;
    }
    const { provider, tree } = await host.managed(sessionId).seam.ready();
    const active = await tree.pathIdSet();
    const messages = await readMessages(
      provider,
      group.filter((i) => i.kind === "message").map((i) => i.id),
    );
    const overlays = group.some((i) => i.kind === "summary")
      ? new Map((await provider.getCompactions()).map((o) => [o.id, o]))
      : new Map<string, StoredCompaction>();
    for (const item of group)
      resolved.set(
        item,
        item.kind === "summary"
          ? resolveOverlay(overlays.get(item.id), active)
          : resolveMessage(messages.get(item.id) ?? null, active),
      );
  });
  return items.map((item) => resolved.get(item) ?? null);
}

/** Sessions whose hits are resolved at once (a pool's default size is 10). */
const RESOLVE_CONCURRENCY = 8;

/** `work` for every value, at most `limit` at a time; rejects with the first failure. */
async function eachConcurrently<T>(
  values: readonly T[],
  limit: number,
  work: (value: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < values.length) await work(values[next++]!);
  };
  await Promise.all(
    Array.from({ length: Math.min(limit, values.length) }, worker),
  );
}
