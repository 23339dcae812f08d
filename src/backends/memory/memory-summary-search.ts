import type {
  RegistrySearchOptions,
  SummaryHit,
} from "../../session/contracts/registry.js";
import { summaryMatchCount } from "../../session/text/summary-match.js";
import { withinTimeRange } from "../../session/text/search-options.js";
import type { MemoryStore } from "./memory-store.js";

/**
 * Overlays of the store's registered sessions whose summary matches the query
 * (`summaryMatches`), those holding more terms first, then newest first, at most
 * `options.limit`, under the registry's filters.
 */
export function searchMemorySummaries(
  store: MemoryStore,
  query: string,
  options: RegistrySearchOptions,
  ownerOf: (sessionId: string) => string | null,
): SummaryHit[] {
  const wanted = options.sessionIds ? new Set(options.sessionIds) : null;
  const found: Array<
    SummaryHit & { createdAt: string; order: number; count: number }
  > = [];
  for (const sessionId of store.registry.keys()) {
    if (wanted && !wanted.has(sessionId)) continue;
    if (options.ownerId !== undefined && ownerOf(sessionId) !== options.ownerId)
      continue;
    const overlays = store.peek(sessionId)?.compactions ?? [];
    overlays.forEach((overlay, order) => {
      if (!withinTimeRange(overlay.createdAt, options)) return;
      const count = summaryMatchCount(overlay.summary, query, options.match);
      if (count > 0)
        found.push({
          sessionId,
          id: overlay.id,
          createdAt: overlay.createdAt,
          order,
          count,
        });
    });
  }
  return found
    .sort((a, b) =>
      a.count !== b.count
        ? b.count - a.count
        : a.createdAt !== b.createdAt
          ? a.createdAt < b.createdAt
            ? 1
            : -1
          : b.order - a.order,
    )
    .slice(0, Math.max(0, options.limit))
    .map(({ sessionId, id }) => ({ sessionId, id }));
}
