import type { ApiKeyStore } from "./api-keys.js";
import type { ChangeFeedSource } from "./changes.js";
import type { BackendStreams } from "./chat-streams.js";
import type { BackendEmbeddings } from "./embedding-store.js";
import type { StoreEraseResult, StoreEraseTarget } from "./erase.js";
import type { SessionProvider } from "./provider.js";
import type { SessionRegistry } from "./registry.js";

/**
 * A store as a whole (docs/custom-providers.md, "A whole backend"): what the SessionManager,
 * erase, prune and embeddings need beyond one session's `SessionProvider`. Every built-in backend
 * (`src/backends/<name>/`) builds one; a custom store earns the same features by implementing it
 * and passing it to `SessionManager.create(backend)`.
 *
 * | Member       | Required | What uses it                                                    |
 * | ------------ | -------- | --------------------------------------------------------------- |
 * | `name`       | yes      | error messages                                                  |
 * | `identity`   | yes      | append locks, erase epochs and embedding indexes key on it       |
 * | `registry`   | yes      | the SessionManager's list, search, usage and lifecycle          |
 * | `session()`  | yes      | opening a session of the store                                  |
 * | `erase`      | no       | `manager.erase()`, `manager.prune()`; without it `NOT_SUPPORTED` |
 * | `embeddings` | no       | `withEmbeddings()`, `removeEmbeddings()`; without it `NOT_SUPPORTED` |
 * | `apiKeys`    | no       | API keys kept in the store, for `createApp({ auth })`            |
 * | `changes`    | no       | `manager.watch()`; without it `NOT_SUPPORTED`                   |
 * | `streams`    | no       | `arbor-memory/ai-sdk`: resumable answers, stop from any process; without it both work in one process only |
 * | `searchIndex`| no       | `manager.configureSearchIndex()` (tool outputs searchable); without it `NOT_SUPPORTED` |
 *
 * A session's own `session.watch()` uses its provider's `watchChanges`; the built-in providers
 * implement it over the same feed as their backend's `changes`.
 */
export interface Backend {
  /** Names the backend in messages: `"memory"`, `"sql"`, `"postgres"`, or a custom store's. */
  readonly name: string;
  /**
   * The object that identifies the store: the same value the store's providers give as
   * `storeIdentity`, so everything that serializes per store in this process agrees.
   */
  readonly identity: object;
  /** The registry of the store's sessions. */
  readonly registry: SessionRegistry;
  /** A provider scoped to one session of the store. */
  session(sessionId: string): SessionProvider;
  /** Optional: erasing rows for good (docs/behavior/erase-and-retention.md). */
  readonly erase?: BackendErase;
  /** Optional: the store's vectors and embedding queue (docs/search.md). */
  readonly embeddings?: BackendEmbeddings;
  /** Optional: API keys kept in the same store (docs/server.md, "API keys"). */
  readonly apiKeys?: ApiKeyStore;
  /**
   * Optional: the store's change feed (docs/behavior/events-and-audit.md, "Change feed"): every
   * committed write from every process, with positions to resume from.
   */
  readonly changes?: ChangeFeedSource;
  /** Optional: the chunks of chat answers being generated (docs/ai-sdk.md, "Resumable streams"). */
  readonly streams?: BackendStreams;
  /**
   * Optional: what the store's text index holds beyond text and tool-call inputs
   * (docs/behavior/search.md#tool-outputs). The settings live in the store, so every process
   * over it indexes alike.
   */
  readonly searchIndex?: BackendSearchIndex;
}

/** What a store's text index holds beyond message text and tool-call inputs. */
export interface SearchIndexSettings {
  /**
   * Tool outputs and error texts are searchable too, the first 4 KB of each call's
   * (`MAX_TOOL_OUTPUT_BYTES`). Off by default: outputs are most of a coding agent's history, and
   * indexing them grows the index several times (docs/search.md#index-size).
   */
  readonly toolOutputs: boolean;
}

/** What `configureSearchIndex()` changed. */
export interface SearchIndexChange {
  /** The settings now in force. */
  readonly settings: SearchIndexSettings;
  /** Whether they differ from the ones the store had. */
  readonly changed: boolean;
  /** How many messages were re-indexed for the change (those that may hold a tool call). */
  readonly reindexed: number;
}

/** A backend's side of the search-index settings. */
export interface BackendSearchIndex {
  /** The settings the store's index follows (all off for a store never configured). */
  settings(): Promise<SearchIndexSettings>;
  /**
   * Records `settings` in the store and, when they change what is indexed, re-indexes every
   * message that may hold a tool call, in one atomic write: concurrent writers of any process
   * index by the old settings before it and by the new ones after it.
   */
  configure(settings: SearchIndexSettings): Promise<SearchIndexChange>;
}

/** A backend's side of erase: its own rows, in one atomic write per target. */
export interface BackendErase {
  /**
   * Erases the target's rows (messages, overlays, index rows, attachments the target alone
   * references; a whole session also its config, block history and `contextKeys` rows) in one
   * atomic write, and says what went. With `dryRun` nothing is written and the counts are what a
   * real erase would remove; `pending` carries attachment references that earlier counted targets
   * of the same erase would release.
   */
  eraseTarget(
    target: StoreEraseTarget,
    options: { dryRun: boolean; pending?: Map<string, number> },
  ): Promise<StoreEraseResult>;
}

/** True for an object shaped like a `Backend` (what `SessionManager.create()` tells it by). */
export function isBackend(value: unknown): value is Backend {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Partial<Record<keyof Backend, unknown>>;
  return (
    typeof candidate.name === "string" &&
    // A postgres.js client, a function, is the identity of its database.
    (typeof candidate.identity === "object" ||
      typeof candidate.identity === "function") &&
    candidate.identity !== null &&
    typeof candidate.session === "function" &&
    typeof candidate.registry === "object" &&
    candidate.registry !== null
  );
}
