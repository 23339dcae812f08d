import { hasCapability } from "../contracts/provider-capabilities.js";
import type { SessionProvider } from "../contracts/provider.js";
import type { SessionTree } from "../state/session-tree.js";
import type { RecentHistoryResult, SearchResult } from "../contracts/types.js";
import {
  normalizeTextSearchOptions,
  type TextSearchInput,
} from "../text/search-options.js";
import { queryTerms } from "../text/search-terms.js";
import { utf8Length } from "../encoding/utf8.js";
import { ArborError } from "../errors/index.js";

const DEFAULT_SEARCH_LIMIT = 20;

/**
 * A suffix of the active path that fits `maxContentBytes`. Without the provider's
 * `getRecentHistory()` the full history is returned, with one warning per session (`fallback`).
 */
export async function recentHistory(
  tree: SessionTree,
  maxContentBytes: number,
  minRecentMessages: number,
  fallback: { warned: boolean },
  leafId?: string | null,
): Promise<RecentHistoryResult> {
  const recent = await tree.recentHistory(
    leafId,
    maxContentBytes,
    minRecentMessages,
  );
  if (recent) return recent;
  if (!fallback.warned) {
    fallback.warned = true;
    console.warn(
      "[arbor] The session provider has no getRecentHistory(); the full history is returned and the byte budget is not enforced",
    );
  }
  const messages = await tree.history(leafId);
  let totalContentBytes = 0;
  for (const message of messages)
    totalContentBytes += utf8Length(JSON.stringify(message));
  return { messages, truncated: false, totalContentBytes };
}

/** Stored messages in every branch: the provider's COUNT, else the length of its export. */
export async function countMessages(
  provider: SessionProvider,
): Promise<number> {
  if (provider.countMessages) return provider.countMessages();
  if (provider.exportMessages) return (await provider.exportMessages()).length;
  throw new ArborError(
    "NOT_SUPPORTED",
    "[arbor] The session provider can neither count nor export its messages",
  );
}

/**
 * Full-text search in the session; a `limit` that is not a positive integer means 20. The text
 * options are checked (`normalizeTextSearchOptions`) before the provider is asked.
 */
export async function searchSession(
  provider: SessionProvider,
  query: string,
  limit: number | undefined,
  options?: TextSearchInput,
): Promise<SearchResult[]> {
  if (!hasCapability(provider, "search")) {
    throw new ArborError(
      "NOT_SUPPORTED",
      "Session provider does not support search",
    );
  }
  const textOptions = normalizeTextSearchOptions(options);
  if (queryTerms(query).length === 0) return [];
  const validLimit =
    Number.isInteger(limit) && (limit as number) > 0
      ? (limit as number)
      : DEFAULT_SEARCH_LIMIT;
  return Object.keys(textOptions).length > 0
    ? provider.searchMessages(query, validLimit, textOptions)
    : provider.searchMessages(query, validLimit);
}
