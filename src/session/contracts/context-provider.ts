/**
 * The four kinds of context provider (docs/behavior/context-blocks.md), told apart by duck typing: any object with
 * `get()` is a provider; `set(content)` makes it writable, `load(key)` a skill collection,
 * `search(query)` searchable knowledge. Applications implement these to put anything behind a
 * block: a database row, a vector index, a remote memory service.
 */

/** A read-only block: its content is rendered into the system prompt with the tag `[readonly]`. */
export interface ContextProvider {
  /** The block's content, or `null` for none. */
  get(): Promise<string | null>;
  /** Called with the block's label before the first `get()` of each load; must be idempotent. */
  init?(label: string): void;
}

/** A block the model edits with `set_context`. */
export interface WritableContextProvider extends ContextProvider {
  set(content: string): Promise<void>;
}

/** A collection of documents loaded on demand; `get()` returns the list shown in the prompt. */
export interface SkillProvider extends ContextProvider {
  /** The document with this key, or `null`. */
  load(key: string): Promise<string | null>;
  /** Optional: store a document (keyed writes through `set_context`). */
  set?(key: string, content: string, description?: string): Promise<void>;
}

/** What `search_context` passes on besides the query: a time range, when the model gives one. */
export interface SearchProviderOptions {
  /** Only entries at or after this ISO-8601 date or instant. */
  since?: string;
  /** Only entries before this ISO-8601 date or instant. */
  until?: string;
}

/** Searchable knowledge; `get()` returns a one-line summary shown in the prompt. */
export interface SearchProvider extends ContextProvider {
  /**
   * Results formatted for the model, or `null` for none. `options` carries the model's
   * `since`/`until`; a provider whose entries have no time may ignore it.
   */
  search(
    query: string,
    options?: SearchProviderOptions,
  ): Promise<string | null>;
  /** Optional: index an entry (keyed writes through `set_context`). */
  set?(key: string, content: string): Promise<void>;
}

export type AnyContextProvider =
  ContextProvider | WritableContextProvider | SkillProvider | SearchProvider;

/** True for a non-null object with a callable `set`. */
export function isWritableProvider(
  provider: unknown,
): provider is WritableContextProvider {
  return hasMethod(provider, "set");
}

/** True for a non-null object with a callable `load`. */
export function isSkillProvider(provider: unknown): provider is SkillProvider {
  return hasMethod(provider, "load");
}

/** True for a non-null object with a callable `search`. */
export function isSearchProvider(
  provider: unknown,
): provider is SearchProvider {
  return hasMethod(provider, "search");
}

// --- Internal helpers ---

function hasMethod(value: unknown, name: string): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as Record<string, unknown>)[name] === "function"
  );
}
