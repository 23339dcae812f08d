import type {
  CompactionErrorHandler,
  SessionTokenCounter,
} from "../contracts/types.js";
import type { ContextConfig } from "../context/types.js";
import type { WritableContextProvider } from "../contracts/context-provider.js";
import type { SessionSearchOptions } from "../embeddings/types.js";

/** Options of the direct constructor (docs/behavior/session-setup.md): exactly these pieces, no auto-wiring. */
export interface SessionOptions {
  /** Context blocks; a config without provider is an empty read-only block. */
  context?: ContextConfig[];
  /** Persists the frozen system prompt. */
  promptStore?: WritableContextProvider;
  /** The session id the provider is scoped to, when the provider does not say (`provider.sessionId`). */
  sessionId?: string;
  /** Replaces the heuristic token estimate for auto-compaction and status (docs/behavior/overlays.md). */
  tokenCounter?: SessionTokenCounter;
  /** Receives auto-compaction failures. */
  onCompactionError?: CompactionErrorHandler;
  /** Row-size limit applied on append and update (docs/behavior/overlays.md); default 1,800,000; `false` disables. */
  maxRowBytes?: number | false;
}

/** Options of `session.search()`: `limit`, and `mode`, `scope`, `leafId` (docs/search.md). */
export type SearchOptions = SessionSearchOptions;
