/**
 * `session.search()` with modes and scopes (docs/search.md). A search with none of the new
 * options and no embeddings runs exactly as before (the provider's full-text search).
 */
import type { BackendEmbeddings } from "../contracts/embedding-store.js";
import { requireEmbeddings } from "./embedding-stores.js";
import type { SessionProvider } from "../contracts/provider.js";
import type { SessionTree } from "../state/session-tree.js";
import type {
  SearchResult,
  SessionMessage,
  StoredCompaction,
} from "../contracts/types.js";
import { searchableText } from "../core/message-codec.js";
import {
  normalizeSearchLimit,
  rankWindow,
  recallRankWindow,
} from "../core/search-limit.js";
import { queryTerms } from "../core/search-terms.js";
import {
  normalizeTextSearchOptions,
  withinTimeRange,
} from "../core/search-options.js";
import { ArborError } from "../errors/index.js";
import { searchSession } from "../session-reads.js";
import type { EmbeddingHandle } from "./embedding-handle.js";
import {
  checkRecallOptions,
  interleave,
  recall,
  type RecallItem,
} from "./recall.js";
import { byMatchCount, summaryMatchCount } from "../core/summary-match.js";
import type { RecallResult, SessionSearchOptions } from "./types.js";

/** Searches one session; see the module comment. */
export async function searchSessionRecall(
  tree: SessionTree,
  embeddings: BackendEmbeddings | null,
  handle: EmbeddingHandle | null,
  query: string,
  options: SessionSearchOptions,
): Promise<SearchResult[] | RecallResult[]> {
  const plain =
    options.mode === undefined &&
    options.scope === undefined &&
    options.leafId === undefined;
  const { provider } = tree;
  if (handle === null && plain)
    return searchSession(provider, query, options.limit, options);
  const { mode, scope } = checkRecallOptions(options, handle !== null);
  const textOptions = normalizeTextSearchOptions(options);
  if (queryTerms(query).length === 0) return [];
  const limit = normalizeSearchLimit(options.limit);
  const sessionId = provider.sessionId ?? "";
  const index = handle
    ? await handle.index(requireEmbeddings(embeddings, "withEmbeddings()"))
    : null;
  const path = scope !== "branch" ? null : await tree.pathIdSet(options.leafId);
  if (path !== null && path.size === 0 && options.leafId !== undefined)
    throw new ArborError(
      "MESSAGE_NOT_FOUND",
      `Message "${options.leafId}" not found in session "${sessionId}"`,
    );
  const overlays = (await provider.getCompactions()).filter(
    (o) =>
      path === null || (path.has(o.fromMessageId) && path.has(o.toMessageId)),
  );
  const byOverlay = new Map(overlays.map((o) => [o.id, o]));
  return recall({
    query,
    mode,
    limit,
    index,
    withSessionId: false,
    text: async () => {
      const hits = await searchSession(provider, query, rankWindow(limit), {
        ...textOptions,
        rankWindow: recallRankWindow(limit),
      });
      const messages: Array<RecallItem & { hit?: SearchResult }> = hits
        .filter((hit) => path === null || path.has(hit.id))
        .map((hit) => ({ sessionId, kind: "message", id: hit.id, hit }));
      const summaries: RecallItem[] = byMatchCount(
        overlays
          .filter((overlay) => withinTimeRange(overlay.createdAt, textOptions))
          .map((overlay) => ({
            overlay,
            count: summaryMatchCount(overlay.summary, query, textOptions.match),
          }))
          .filter((entry) => entry.count > 0)
          .reverse(),
      ).map(({ overlay }) => ({ sessionId, kind: "summary", id: overlay.id }));
      return interleave(messages, summaries);
    },
    semantic: {
      sessionIds: [sessionId],
      ...(path ? { itemIds: [...path, ...byOverlay.keys()] } : {}),
    },
    resolve: async (items) => {
      // Read after the text ranking: its index catch-up leaves a kept path valid (sql store).
      const active =
        path !== null && options.leafId === undefined
          ? path
          : await tree.pathIdSet();
      const messages = await readMessages(
        provider,
        items.filter((i) => i.kind === "message").map((i) => i.id),
      );
      return items.map((item) =>
        item.kind === "summary"
          ? resolveOverlay(byOverlay.get(item.id), active)
          : resolveMessage(messages.get(item.id) ?? null, active),
      );
    },
  });
}

/** The stored messages with these ids, by id. */
export async function readMessages(
  provider: SessionProvider,
  ids: string[],
): Promise<Map<string, SessionMessage>> {
  const found = provider.getMessagesByIds
    ? await provider.getMessagesByIds(ids)
    : await Promise.all(ids.map(async (id) => provider.getMessage(id)));
  const out = new Map<string, SessionMessage>();
  found.forEach((message, i) => {
    if (message) out.set(ids[i]!, message);
  });
  return out;
}

/** A message as a result, or `null` when it is gone. */
export function resolveMessage(
  message: SessionMessage | null,
  active: ReadonlySet<string>,
) {
  if (!message) return null;
  // A hit found by meaning alone has no text-search row: its time is the message's own, if any.
  const createdAt =
    message.createdAt instanceof Date &&
    !Number.isNaN(message.createdAt.getTime())
      ? message.createdAt.toISOString()
      : undefined;
  return {
    role: message.role,
    content: searchableText(message),
    ...(createdAt !== undefined ? { createdAt } : {}),
    onActiveBranch: active.has(message.id),
  };
}

/** An overlay as a result (role `"summary"`), or `null` when it is gone. */
export function resolveOverlay(
  overlay: StoredCompaction | undefined,
  active: ReadonlySet<string>,
) {
  if (!overlay) return null;
  return {
    role: "summary",
    content: overlay.summary,
    ...(overlay.createdAt ? { createdAt: overlay.createdAt } : {}),
    onActiveBranch:
      active.has(overlay.fromMessageId) && active.has(overlay.toMessageId),
  };
}
