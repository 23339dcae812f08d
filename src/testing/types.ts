import type {
  SeedSessionProvider,
  SessionProvider,
} from "../session/contracts/provider.js";

/**
 * The few matchers the suite uses. vitest's and jest's `expect(actual)` return objects that have
 * them; for node:test, `assertExpect(assert)` builds one from `node:assert`.
 */
export interface ExpectLike {
  /** `Object.is` equality. */
  toBe(expected: unknown): void;
  /** Recursive equality of plain data (arrays, objects, Dates, primitives). */
  toEqual(expected: unknown): void;
  toBeNull(): void;
  /** `actual.length === length`. */
  toHaveLength(length: number): void;
  toBeGreaterThan(expected: number): void;
  toBeGreaterThanOrEqual(expected: number): void;
  /** An array containing `item` (by `===`) or a string containing the substring `item`. */
  toContain(item: unknown): void;
  toBeTruthy(): void;
  toBeFalsy(): void;
}

/**
 * The test-runner functions the suite registers its cases with. vitest's `{ describe, it, expect,
 * beforeAll, afterAll }` fit directly, and so do jest's globals.
 */
export interface ConformanceApi {
  describe(name: string, fn: () => void): void;
  /** Registers one case; `it.skip`, when present, registers a skipped one (its name says why). */
  it: ((name: string, fn: () => unknown) => void) & {
    skip?: (name: string, fn: () => unknown) => void;
  };
  expect: (actual: unknown) => ExpectLike;
  /** Runs `factory.beforeAll` once. Without it, `factory.beforeAll` runs before the first case. */
  beforeAll?(fn: () => unknown): void;
  /** Runs `factory.afterAll` once. Without it, `factory.afterAll` is never called. */
  afterAll?(fn: () => unknown): void;
}

/**
 * What a backend can do beyond the required contract, or where it legitimately differs from the
 * SQLite reference behaviour (docs/behavior/search.md, docs/behavior/storage.md). A case that needs a flag the backend does
 * not have is registered as skipped, with the flag in its name (`[skipped: stemming=false]`).
 * Every flag defaults to the SQLite (`AgentSessionProvider`) behaviour.
 */
export interface ProviderCapabilities {
  /** `searchMessages` is implemented (docs/behavior/search.md). Default `true`. */
  search: boolean;
  /**
   * Porter/Snowball-grade English stemming: `connections` finds `connected`. FTS5 `porter`,
   * Postgres `english` and the in-memory Porter stemmer have it. Default `true`.
   */
  stemming: boolean;
  /**
   * At least plural / `-ing` / `-ed` stripping: `deployments` finds `deployment`. Default `true`.
   */
  lightStemming: boolean;
  /**
   * Results are ranked by relevance: a message that repeats the query term ranks above one that
   * mentions it once (FTS5 `bm25()`, `ts_rank`, in-memory BM25). Default `true`.
   */
  relevanceRanking: boolean;
  /**
   * The text-search configuration drops stop words (Postgres `english`: "the", "or", "not"), so
   * such words cannot be required literally even under `match: "all"`, nor found by a query made
   * only of them (docs/behavior/search.md, a documented difference). Default `false`.
   */
  stopWords: boolean;
  /** Latin and Cyrillic matching folds diacritics: `cafe` finds `Café`. Default `true`. */
  diacriticFolding: boolean;
  /** `getRecentHistory` is implemented (docs/behavior/history.md). Default `true`. */
  recentHistory: boolean;
  /** `getHistoryRowStats` is implemented (docs/behavior/history.md). Default `true`. */
  rowStats: boolean;
  /** `deleteCompaction` is implemented (docs/behavior/overlays.md). Default `true`. */
  deleteCompaction: boolean;
  /**
   * Concurrent raw-provider appends without a parent form one chain: the storage makes the
   * read-latest-leaf-then-insert atomic (docs/behavior/messages-and-tree.md, docs/behavior/storage.md). A `Session` serializes its own appends
   * within a process anyway, so a custom provider used only through Sessions in one process may
   * declare `false`. Default `true`.
   */
  atomicAppends: boolean;
  /**
   * `createContextProvider()` and `createBlockHistory()` are implemented, so sessions auto-wire
   * writable blocks and the context spec (blocks, prompt, tools, skills, block history) runs.
   * Default `true`.
   */
  contextBlocks: boolean;
  /**
   * `getConfig()`/`setConfig()` are implemented, so per-session settings such as the
   * `switchBranch()` pointer survive a restart. Default `true`.
   */
  config: boolean;
  /**
   * `exportMessages()` and `importRecords()` are implemented, so `exportSnapshot()` and
   * `importSnapshot()` work (docs/behavior/manager.md). Default `true`.
   */
  snapshots: boolean;
}

/**
 * One store under test: the same storage addressed by session id. `session(id)` may return a new
 * provider object on every call, but two calls with the same id MUST address the same rows, and
 * different ids MUST NOT see each other's rows.
 */
export interface ConformanceStore {
  /**
   * A provider scoped to `sessionId` over this store. A seed-shaped one (`appendMessage`, no
   * `writeMessages`) is adapted as `Session.create()` adapts it.
   */
  session(sessionId: string): SessionProvider | SeedSessionProvider;
  /** Releases the store (close connections, delete files). Called after each case. */
  destroy?(): unknown;
}

/**
 * How the suite gets stores of one backend.
 *
 * **Isolation rule:** every `create()` MUST return fresh or cleared storage: no message, overlay
 * or index row written by an earlier case may be visible. The suite calls `create()` once per
 * case and `destroy()` after it; cases never run concurrently with each other on one factory
 * unless the runner does so, and then each still has its own store.
 */
export interface ProviderFactory {
  /** Shown in the suite's top-level `describe`. */
  name: string;
  /** Declared gaps and differences; unspecified flags take their defaults. */
  capabilities?: Partial<ProviderCapabilities>;
  /** Once before the first case (start a server, create a temporary folder). */
  beforeAll?(): unknown;
  /** Once after the last case. */
  afterAll?(): unknown;
  /** Fresh or cleared storage (see the isolation rule above). */
  create(): ConformanceStore | Promise<ConformanceStore>;
}
