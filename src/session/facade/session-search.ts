/**
 * `session.search()` (docs/search.md): one session as the search pipeline's space
 * (embeddings/search-pipeline.ts). Its branches can narrow a ranked search (`scope: "branch"`,
 * `leafId`); overlays are matched by their summary in memory. Loaded on first search, so a
 * Worker's first chunk carries none of it.
 */
import { requireEmbeddings } from "../embeddings/embedding-stores.js";
import { runSearch } from "../embeddings/search-pipeline.js";
import type {
  RankingScope,
  SearchSpace,
  SpaceSession,
} from "../embeddings/search-space.js";
import type { SearchHit, SessionSearchOptions } from "../embeddings/types.js";
import { withinTimeRange } from "../text/search-options.js";
import { byMatchCount, summaryMatchCount } from "../text/summary-match.js";
import { ArborError } from "../errors/index.js";
import { searchSession } from "./session-reads.js";
import type { SessionRuntime } from "./session-runtime.js";

/** Searches one session; see the module comment. */
export async function searchSessionHits(
  runtime: SessionRuntime,
  query: string,
  options: SessionSearchOptions,
): Promise<SearchHit[]> {
  return runSearch(sessionSpace(runtime), query, options);
}

// --- Internal helpers ---

function sessionSpace(runtime: SessionRuntime): SearchSpace {
  const session: SpaceSession = { ready: () => runtime.ready() };
  return {
    embeddings: runtime.embeddings?.handle ?? null,
    acrossSessions: false,
    searchText: async (query, options) =>
      searchSession(
        (await runtime.ready()).provider,
        query,
        options.limit,
        options,
      ),
    embeddingStore: async () =>
      requireEmbeddings((await runtime.ready()).embeddings, "withEmbeddings()"),
    rankingScope: async (scope, leafId) =>
      branchScope(runtime, scope === "branch", leafId),
    // Every candidate and hit of this space is of this session.
    sessions: async (ids) => new Map(ids.map((id) => [id, session])),
  };
}

/** The session, or with `branch` the path to `leafId` (default the active branch). */
async function branchScope(
  runtime: SessionRuntime,
  branch: boolean,
  leafId: string | undefined,
): Promise<RankingScope> {
  const { tree } = await runtime.ready();
  const { provider } = tree;
  const sessionId = provider.sessionId ?? "";
  const path = branch ? await tree.pathIdSet(leafId) : null;
  if (path !== null && path.size === 0 && leafId !== undefined)
    throw new ArborError(
      "MESSAGE_NOT_FOUND",
      `Message "${leafId}" not found in session "${sessionId}"`,
    );
  const overlays = (await provider.getCompactions()).filter(
    (o) =>
      path === null || (path.has(o.fromMessageId) && path.has(o.toMessageId)),
  );
  const byOverlay = new Map(overlays.map((o) => [o.id, o]));
  return {
    sessionId,
    path,
    ...(path !== null && leafId === undefined ? { active: path } : {}),
    overlays: byOverlay,
    // Matched as substrings in memory: a session's overlays are few.
    summaries: async (query, options) =>
      byMatchCount(
        overlays
          .filter((overlay) => withinTimeRange(overlay.createdAt, options))
          .map((overlay) => ({
            overlay,
            count: summaryMatchCount(overlay.summary, query, options.match),
          }))
          .filter((entry) => entry.count > 0)
          .reverse(),
      ).map(({ overlay }) => ({ sessionId, kind: "summary", id: overlay.id })),
    semantic: {
      sessionIds: [sessionId],
      ...(path ? { itemIds: [...path, ...byOverlay.keys()] } : {}),
    },
  };
}
