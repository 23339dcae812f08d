/**
 * `manager.search()` (docs/search.md): the sessions of the registry, narrowed by `sessionIds`
 * and `ownerId`, as the search pipeline's space (embeddings/search-pipeline.ts). The registry
 * runs the text and summary searches across them; hits resolve and place in the sessions the
 * manager opens. Loaded on first search.
 */
import type { BackendEmbeddings } from "../contracts/embedding-store.js";
import type { RegistrySearchOptions } from "../contracts/registry.js";
import { normalizeSearchLimit } from "../text/search-limit.js";
import { normalizeTextSearchOptions } from "../text/search-options.js";
import { queryTerms } from "../text/search-terms.js";
import { requireEmbeddings } from "../embeddings/embedding-stores.js";
import { runSearch } from "../embeddings/search-pipeline.js";
import type { SearchSpace, SpaceSession } from "../embeddings/search-space.js";
import type { SearchHit } from "../embeddings/types.js";
import { requireBackend, type ManagerHost } from "./manager-backend.js";
import type { ManagerSearchOptions } from "./manager-options.js";
import type { SessionSettings } from "./session-settings.js";

/** The embeddings of the manager's store; `NOT_SUPPORTED` when it has none. */
export function storeEmbeddings(
  host: ManagerHost,
  caller = "withEmbeddings()",
): BackendEmbeddings {
  return requireEmbeddings(requireBackend(host, caller).embeddings, caller);
}

/** Searches the registry's sessions; see the module comment. */
export async function searchManagerHits(
  host: ManagerHost,
  settings: SessionSettings,
  query: string,
  options: ManagerSearchOptions,
): Promise<SearchHit[]> {
  return runSearch(registrySpace(host, settings, options), query, options);
}

// --- Internal helpers ---

/** The registry's sessions under the search's `sessionIds` and `ownerId`. */
function registrySpace(
  host: ManagerHost,
  settings: SessionSettings,
  tenancy: Pick<ManagerSearchOptions, "sessionIds" | "ownerId">,
): SearchSpace {
  const { registry } = host;
  /** The registry's options: the space's tenancy, the limit normalized, text options checked. */
  const registryOptions = (
    options: Parameters<SearchSpace["searchText"]>[1],
  ): RegistrySearchOptions => ({
    limit: normalizeSearchLimit(options.limit),
    ...(tenancy.sessionIds ? { sessionIds: tenancy.sessionIds } : {}),
    ...(tenancy.ownerId !== undefined ? { ownerId: tenancy.ownerId } : {}),
    ...normalizeTextSearchOptions(options),
  });
  return {
    embeddings: settings.embeddings,
    acrossSessions: true,
    searchText: async (query, options) => {
      const checked = registryOptions(options);
      if (queryTerms(query).length === 0) return [];
      return registry.search(query, checked);
    },
    ...(registry.openings
      ? {
          openings: async (messages) => registry.openings!(messages),
        }
      : {}),
    embeddingStore: async () => storeEmbeddings(host),
    rankingScope: async () => ({
      path: null,
      // Overlays found by their summary, newest first; none on a registry without the method.
      summaries: async (query, options) =>
        registry.searchSummaries
          ? (
              await registry.searchSummaries(query, registryOptions(options))
            ).map((hit) => ({ ...hit, kind: "summary" as const }))
          : [],
      semantic: { sessionIds: await sessionScope(host, tenancy) },
    }),
    sessions: async (ids) => {
      const rows = registry.getMany
        ? await registry.getMany(ids)
        : await Promise.all(ids.map(async (id) => registry.get(id)));
      const out = new Map<string, SpaceSession>();
      for (const info of rows)
        if (info)
          out.set(info.id, {
            name: info.name,
            ready: () => host.managed(info.id).seam.ready(),
          });
      return out;
    },
  };
}

/** The session ids a search may return (`null`: all), from `sessionIds` and `ownerId`. */
async function sessionScope(
  host: ManagerHost,
  tenancy: Pick<ManagerSearchOptions, "sessionIds" | "ownerId">,
): Promise<string[] | null> {
  let ids: string[] | null = tenancy.sessionIds
    ? [...tenancy.sessionIds]
    : null;
  if (tenancy.ownerId !== undefined) {
    const owned = new Set<string>();
    for (
      let page = await host.registry.list({
        ownerId: tenancy.ownerId,
        limit: 1000,
      });
      ;
    ) {
      for (const info of page) owned.add(info.id);
      const last = page.at(-1);
      if (page.length < 1000 || !last) break;
      page = await host.registry.list({
        ownerId: tenancy.ownerId,
        limit: 1000,
        after: last,
      });
    }
    ids = ids === null ? [...owned] : ids.filter((id) => owned.has(id));
  }
  // Sessions deleted from the registry keep no searchable rows, but be strict.
  return ids;
}
