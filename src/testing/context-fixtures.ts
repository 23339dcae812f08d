import type {
  ContextProvider,
  SearchProvider,
  SkillProvider,
  WritableContextProvider,
} from "../session/contracts/context-provider.js";
import {
  byMatchCount,
  summaryMatchCount,
} from "../session/text/summary-match.js";

/** A read-only block with fixed content. */
export function readonlyProvider(content: string | null): ContextProvider {
  return { get: async () => content };
}

/** A writable block kept in a closure; `failWrites` makes `set` throw (provider outage). */
export function writableProvider(
  initial: string | null = null,
  options: { failWrites?: boolean } = {},
): WritableContextProvider & { value: string | null } {
  const provider = {
    value: initial,
    get: async () => provider.value,
    set: async (content: string) => {
      if (options.failWrites) throw new Error("provider is down");
      provider.value = content;
    },
  };
  return provider;
}

/** A skill collection over a Map; `get()` lists `- key: description`. */
export function skillProvider(
  documents: Record<string, { content: string; description?: string }> = {},
): SkillProvider & {
  documents: Map<string, { content: string; description?: string }>;
} {
  const stored = new Map(Object.entries(documents));
  return {
    documents: stored,
    get: async () =>
      stored.size === 0
        ? null
        : [...stored]
            .map(([key, doc]) =>
              doc.description ? `- ${key}: ${doc.description}` : `- ${key}`,
            )
            .join("\n"),
    load: async (key) => stored.get(key)?.content ?? null,
    set: async (key, content, description) => {
      stored.set(key, {
        content,
        ...(description !== undefined ? { description } : {}),
      });
    },
  };
}

/**
 * Searchable knowledge over a Map, matched as overlay summaries are (`summaryMatchCount`): the
 * query rules of message search (any term that counts, stop and question words dropped) on
 * folded substrings, entries holding more terms first, then in insertion order.
 */
export function searchProvider(
  entries: Record<string, string> = {},
): SearchProvider & { entries: Map<string, string> } {
  const stored = new Map(Object.entries(entries));
  return {
    entries: stored,
    get: async () =>
      stored.size === 0 ? null : `${stored.size} entries indexed.`,
    search: async (query) => {
      const hits = byMatchCount(
        [...stored]
          .map(([key, content]) => ({
            key,
            content,
            count: summaryMatchCount(content, query),
          }))
          .filter((hit) => hit.count > 0),
      ).map((hit): [string, string] => [hit.key, hit.content]);
      return hits.length === 0
        ? null
        : hits.map(([key, content]) => `[${key}]\n${content}`).join("\n\n");
    },
    set: async (key, content) => {
      stored.set(key, content);
    },
  };
}
