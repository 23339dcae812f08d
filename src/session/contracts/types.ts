/** Data shapes shared by every part of Arbor (docs/behavior/messages-and-tree.md). */

/** A value or a Promise of it: every provider method may answer either way. */
export type MaybePromise<T> = T | Promise<T>;

/** One part of a message. AI SDK `UIMessage` parts fit this shape and are kept verbatim. */
export interface SessionMessagePart {
  type: string;
  text?: string;
  reasoning?: string;
  toolCallId?: string;
  toolName?: string;
  input?: unknown;
  output?: unknown;
  state?: string;
  result?: unknown;
  [extra: string]: unknown;
}

/** A stored message. An AI SDK (v5+) `UIMessage` is structurally one. */
export interface SessionMessage {
  id: string;
  role: string;
  parts: SessionMessagePart[];
  createdAt?: Date;
  [extra: string]: unknown;
}

/** Provenance of an overlay (docs/behavior/overlays.md). */
export interface CompactionMeta {
  summarizer?: string;
  tokensBefore?: number;
  tokensAfter?: number;
  coveredMessages?: number;
  /**
   * The `requestKey` of the `compact()` call that stored this overlay: a later call with the same
   * key returns this overlay instead of compacting again (docs/behavior/overlays.md).
   */
  requestKey?: string;
}

/** Options of `session.compact()`. */
export interface CompactCallOptions {
  /**
   * Names this compaction, so that repeating it is safe: when an overlay stored under the same key
   * exists in the session, it is returned and nothing runs or is stored. A caller that retries
   * after a lost answer (the server's `Idempotency-Key`) passes the same key each time.
   */
  requestKey?: string;
}

/** A compaction overlay: `summary` replaces the path range `fromMessageId..toMessageId` at read time. */
export interface StoredCompaction {
  id: string;
  summary: string;
  fromMessageId: string;
  toMessageId: string;
  /** ISO-8601 UTC with milliseconds. */
  createdAt: string;
  meta?: CompactionMeta;
}

/**
 * How a text search matches (docs/behavior/search.md): `"any"` (the default) ranks every message
 * that holds at least one query term, all-term matches first; `"all"` keeps only messages holding
 * every term.
 */
export type MatchMode = "any" | "all";

/**
 * Options of a backend's text search. `since` and `until` are ISO-8601 UTC instants filtering on
 * the message's `createdAt`: `since` inclusive, `until` exclusive.
 */
export interface TextSearchOptions {
  match?: MatchMode;
  since?: string;
  until?: string;
  /**
   * Which terms match as the start of a word (docs/search.md#prefix-search): `"last"` the
   * query's last term ("launch budg" finds "launch budget"), `"all"` every term. Absent: whole
   * words only.
   */
  prefix?: PrefixMode;
  /**
   * How many of the newest matches a ranked search scores (default `RANK_WINDOW`, 200;
   * docs/behavior/search.md#ranking-limits-and-results). The recall ranking (`mode`) asks for a
   * wider one. It never depends on `limit`, so rankings stay the same whatever the limit.
   */
  rankWindow?: number;
}

/** Which terms of a query match as word prefixes: its last one, or every one. */
export type PrefixMode = "last" | "all";

/** One search hit (docs/behavior/search.md). `content` is the indexed text. */
export interface SearchResult {
  id: string;
  role: string;
  content: string;
  createdAt?: string;
  sessionId?: string;
}

/** Size of one stored row on the active path, read without its content. */
export interface HistoryRowStat {
  id: string;
  role: string;
  /** UTF-8 size of the stored JSON. */
  bytes: number;
}

/** A byte-budgeted suffix of the active path (docs/behavior/history.md). */
export interface RecentHistoryResult {
  messages: SessionMessage[];
  truncated: boolean;
  totalContentBytes: number;
}

/**
 * A loaded context block (docs/behavior/context-blocks.md). Declared here, beside the other shared shapes, because token
 * counters receive blocks; the context-block code produces them.
 */
export interface ContextBlock {
  label: string;
  description?: string;
  /** What the provider's `get()` returned (`null` → ""). */
  content: string;
  /** `estimateStringTokens(content)`. */
  tokens: number;
  maxTokens?: number;
  writable: boolean;
  isSkill: boolean;
  isSearchable: boolean;
  /**
   * `true` for a block created in its session through a manager (`manager.createContextBlock()`,
   * stored with the session); absent for a block the application declares. Only a created block
   * can be deleted (`manager.deleteContextBlock()`).
   */
  created?: true;
}

/** What a session-level token counter sees (docs/behavior/messages-and-tree.md, docs/behavior/overlays.md). */
export interface SessionTokenCounterInput {
  /** The active branch as `getHistory()` returns it (overlays applied). */
  messages: SessionMessage[];
  /** The system prompt inference would use. */
  systemPrompt: string;
  /** The loaded context blocks. */
  contextBlocks: ContextBlock[];
}

/**
 * Counts the tokens of a whole request (docs/behavior/overlays.md). Non-finite results count as 0.
 * A counter that also has `perMessage` is additive: the Session then counts each message once,
 * caches the counts like the default's, and adds the system prompt's text, instead of passing the
 * whole branch to the counter after every insert (`multilingualTokenCounter()` and
 * `exactTokenCounter()` have it).
 */
export interface SessionTokenCounter {
  (input: SessionTokenCounterInput): MaybePromise<number>;
  /** The same count split per message and per text: `counter(input)` must equal the sum. */
  readonly perMessage?: MessageTokenCounts;
}

/** `SessionTokenCounter.perMessage`: synchronous counts of one message and of one text. */
export interface MessageTokenCounts {
  message(message: SessionMessage): number;
  text(text: string): number;
}

/** Options of `compactAfter(threshold, options)`. */
export interface CompactAfterOptions {
  tokenCounter?: SessionTokenCounter;
}

/** What the Session passes to a compaction function as its second argument. */
export interface CompactContext {
  /** The Session's counter, if any: the same one that decided to compact (docs/behavior/overlays.md). */
  tokenCounter?: SessionTokenCounter;
  /**
   * The `compactAfter()` threshold, if set, so the function can size what it keeps below it
   * (`createCompactFunction` protects a tail of at most half of it).
   */
  threshold?: number;
}

/** One summary and the range of the given messages it replaces: what a compaction function answers. */
export interface CompactResult {
  fromMessageId: string;
  toMessageId: string;
  summary: string;
  /** Provenance; the Session adds what it measures before storing the overlay (docs/behavior/overlays.md). */
  meta?: CompactionMeta;
}

/** Receives every auto-compaction failure (docs/behavior/overlays.md). A throwing handler is logged and swallowed. */
export type CompactionErrorHandler = (error: unknown) => void | Promise<void>;
