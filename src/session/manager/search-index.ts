import type {
  BackendSearchIndex,
  SearchIndexChange,
  SearchIndexSettings,
} from "../contracts/backend.js";
import { ArborError, invalidArgument } from "../errors/index.js";
import { requireBackend, type ManagerHost } from "./manager-backend.js";

/*
 * The manager's side of the store's search-index settings (docs/behavior/search.md#tool-outputs):
 * argument checks and the capability check; the store keeps and applies them.
 */

/** The settings the store's index follows. */
export function searchIndexSettings(
  host: ManagerHost,
): Promise<SearchIndexSettings> {
  return requireSearchIndex(host, "searchIndexSettings()").settings();
}

/** Checks `settings` and has the store apply them. */
export function configureSearchIndex(
  host: ManagerHost,
  settings: unknown,
): Promise<SearchIndexChange> {
  const checked = checkSettings(settings);
  return requireSearchIndex(host, "configureSearchIndex()").configure(checked);
}

// --- Internal helpers ---

function requireSearchIndex(
  host: ManagerHost,
  caller: string,
): BackendSearchIndex {
  const backend = requireBackend(host, caller);
  if (backend.searchIndex) return backend.searchIndex;
  throw new ArborError(
    "NOT_SUPPORTED",
    `[arbor] ${caller} needs a store with search-index settings; the "${backend.name}" backend has no \`searchIndex\``,
  );
}

function checkSettings(settings: unknown): SearchIndexSettings {
  if (
    typeof settings !== "object" ||
    settings === null ||
    typeof (settings as { toolOutputs?: unknown }).toolOutputs !== "boolean"
  ) {
    throw invalidArgument(
      "configureSearchIndex() needs `{ toolOutputs: true }` or `{ toolOutputs: false }`",
    );
  }
  const unknownKeys = Object.keys(settings).filter(
    (key) => key !== "toolOutputs",
  );
  if (unknownKeys.length > 0) {
    throw invalidArgument(
      `configureSearchIndex() has no option ${unknownKeys.map((key) => `\`${key}\``).join(", ")}; it takes \`toolOutputs\``,
    );
  }
  return { toolOutputs: (settings as SearchIndexSettings).toolOutputs };
}
