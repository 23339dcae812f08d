/**
 * Ranking of explained search results (docs/search.md), shared by `session.search()` and
 * `manager.search()`: a text ranking (the backend's full-text search, plus overlay summaries),
 * a semantic ranking (nearest vectors), fused in `"hybrid"` mode by rank, the vectors weighed by
 * how far they agree with the words (fusion.ts).
 */
import type { SearchResult } from "../contracts/types.js";
import { rankWindow } from "../text/search-limit.js";
import { ArborError, invalidArgument } from "../errors/index.js";
import type { EmbeddingIndex } from "./embedding-index.js";
import { fuseRankings } from "./fusion.js";
import {
  rankWithSessionEvidence,
  type ReadOpenings,
} from "./session-evidence.js";
import { snippetOf } from "./snippet.js";
import type {
  EmbeddedKind,
  NearestQuery,
} from "../contracts/embedding-store.js";
import type { RecallResult, SearchMode, SearchScope } from "./types.js";

/** One candidate of a ranking. */
export interface RecallItem {
  sessionId: string;
  kind: EmbeddedKind;
  id: string;
}

/** What a candidate resolves to: its text, and where it sits. */
export interface ResolvedItem {
  role: string;
  content: string;
  createdAt?: string;
  onActiveBranch: boolean;
}

/** The sources one search ranks from. */
export interface RecallPlan {
  query: string;
  mode: SearchMode;
  limit: number;
  /** The text ranking, best first (already scoped). */
  text: () => Promise<Array<RecallItem & { hit?: SearchResult }>>;
  /** The semantic ranking's filter, or `null` in text mode. */
  semantic: Omit<NearestQuery, "model" | "limit"> | null;
  index: EmbeddingIndex | null;
  /** Content and branch position of candidates; `null` for one that is gone. */
  resolve: (items: RecallItem[]) => Promise<Array<ResolvedItem | null>>;
  /** Keep results without `sessionId` (a session search) as they were. */
  withSessionId: boolean;
  /**
   * Reorder the candidates by their sessions' evidence (session-evidence.ts) before they are
   * resolved, reading which open their sessions with it: set when this ranking is the whole
   * search's (across sessions, no time named).
   */
  sessionEvidence?: ReadOpenings;
}

/** The mode and scope a search runs with, checked; `INVALID_ARGUMENT` for unknown values. */
export function checkRecallOptions(
  options: { mode?: unknown; scope?: unknown; leafId?: unknown },
  hasEmbeddings: boolean,
): { mode: SearchMode; scope: SearchScope } {
  const { mode = hasEmbeddings ? "hybrid" : "text", scope = "session" } =
    options;
  if (mode !== "text" && mode !== "semantic" && mode !== "hybrid")
    invalid(
      `mode must be "text", "semantic" or "hybrid", got ${JSON.stringify(mode)}`,
    );
  if (scope !== "branch" && scope !== "session")
    invalid(
      `scope must be "branch" or "session", got ${JSON.stringify(scope)}`,
    );
  if (options.leafId !== undefined && typeof options.leafId !== "string")
    invalid("leafId must be a string");
  if (mode !== "text" && !hasEmbeddings)
    throw new ArborError(
      "NOT_SUPPORTED",
      `[arbor] search mode "${mode}" needs embeddings: call withEmbeddings() first`,
    );
  return { mode, scope };
}

/** Runs the plan: rankings, fusion, then the best `limit` results with their explanations. */
export async function recall(plan: RecallPlan): Promise<RecallResult[]> {
  const { query, mode, limit, index } = plan;
  const window = rankWindow(limit);
  const textItems = mode === "semantic" ? [] : await plan.text();
  let semanticItems: Array<RecallItem & { score: number }> = [];
  if (mode !== "text" && index && plan.semantic) {
    try {
      const vector = await index.embedQuery(query);
      const hits = await nearestWithin(index, vector, plan.semantic, window);
      // Vectors pointing away from the query (or orthogonal) say nothing about it.
      semanticItems = hits
        .filter((hit) => hit.score > 0)
        .map((hit) => ({
          sessionId: hit.sessionId,
          kind: hit.kind,
          id: hit.itemId,
          score: hit.score,
        }));
    } catch (error) {
      if (mode === "semantic") throw error;
      console.warn(
        `[arbor] Semantic ranking failed; hybrid search returns text matches: ${String(error)}`,
      );
    }
  }
  const textKeys = textItems.map(keyOf);
  const semanticKeys = semanticItems.map(keyOf);
  const textSet = new Set(textKeys);
  const semanticScores = new Map(
    semanticItems.map((item) => [keyOf(item), item.score]),
  );
  const byKey = new Map<string, RecallItem & { hit?: SearchResult }>();
  for (const item of [...semanticItems, ...textItems])
    byKey.set(keyOf(item), item);
  const fused = rankedKeys(mode, textKeys, semanticKeys, semanticScores);
  // Before resolving: the step reads the candidates' sessions (which every candidate carries)
  // and which of them open their sessions, so a candidate it moves up is read only when it
  // reaches the results.
  const ranked = plan.sessionEvidence
    ? await rankWithSessionEvidence(
        fused,
        ([key]) => {
          const item = byKey.get(key)!;
          return { ...item, role: item.hit?.role };
        },
        plan.sessionEvidence,
        query,
      )
    : fused;
  const results: RecallResult[] = [];
  // Resolve in pages: a candidate whose row is gone is skipped, the next one fills its place.
  for (let at = 0; at < ranked.length && results.length < limit; at += limit) {
    const page = ranked.slice(at, at + limit);
    const items = page.map(([key]) => byKey.get(key)!);
    const resolved = await plan.resolve(items);
    page.forEach(([key, score], i) => {
      const found = resolved[i];
      const item = items[i]!;
      if (!found || results.length >= limit) return;
      const createdAt = item.hit?.createdAt ?? found.createdAt;
      results.push({
        id: item.id,
        role: found.role,
        content: found.content,
        ...(createdAt !== undefined ? { createdAt } : {}),
        ...(plan.withSessionId ? { sessionId: item.sessionId } : {}),
        kind: item.kind,
        score,
        matched: { text: textSet.has(key), semantic: semanticScores.has(key) },
        snippet: snippetOf(found.content, query),
        onActiveBranch: found.onActiveBranch,
      });
    });
  }
  return results;
}

/**
 * The text ranking of messages and of overlay summaries as one list: alternately the next of
 * each, so a matching summary is not pushed below every matching message (they have no common
 * score: summaries are matched as substrings, messages ranked by the full-text engine).
 */
export function interleave<T>(first: readonly T[], second: readonly T[]): T[] {
  const out: T[] = [];
  for (let i = 0; i < Math.max(first.length, second.length); i++) {
    if (i < first.length) out.push(first[i]!);
    if (i < second.length) out.push(second[i]!);
  }
  return out;
}

// --- Internal helpers ---

/**
 * The nearest vectors, restricted to `itemIds` when given. Passing a long id list to the store
 * costs more than the ranking itself, so the unrestricted ranking is tried first (twice the
 * window) and filtered; only when that leaves too few does the store filter by id.
 */
async function nearestWithin(
  index: EmbeddingIndex,
  vector: Float32Array,
  semantic: Omit<NearestQuery, "model" | "limit">,
  window: number,
) {
  const base = { sessionIds: semantic.sessionIds, model: index.model };
  if (semantic.itemIds === undefined)
    return index.store.nearest(vector, { ...base, limit: window });
  const allowed = new Set(semantic.itemIds);
  const wide = await index.store.nearest(vector, {
    ...base,
    limit: window * 2,
  });
  const kept = wide.filter((hit) => allowed.has(hit.itemId));
  if (kept.length >= Math.min(window, allowed.size) || wide.length < window * 2)
    return kept.slice(0, window);
  return index.store.nearest(vector, { ...semantic, ...base, limit: window });
}

function keyOf(item: RecallItem): string {
  return `${item.kind}\u0000${item.sessionId}\u0000${item.id}`;
}

/**
 * Keys with their scores, best first. Text: 1/rank; semantic: cosine; hybrid: rank fusion with
 * the vectors weighed by how far they agree with the words (fusion.ts).
 */
function rankedKeys(
  mode: SearchMode,
  textKeys: string[],
  semanticKeys: string[],
  semanticScores: Map<string, number>,
): Array<[string, number]> {
  if (mode === "text") return textKeys.map((key, i) => [key, 1 / (i + 1)]);
  if (mode === "semantic")
    return semanticKeys.map((key) => [key, semanticScores.get(key)!]);
  return fuseRankings(textKeys, semanticKeys);
}

function invalid(message: string): never {
  throw invalidArgument(`search: ${message}`);
}
