/** Data shapes shared by every part of Arbor (SPEC §2). */

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

/** Provenance of an overlay (SPEC §6.10). */
export interface CompactionMeta {
  summarizer?: string;
  tokensBefore?: number;
  tokensAfter?: number;
  coveredMessages?: number;
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

/** One search hit (SPEC §5.3). `content` is the indexed text. */
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

/** A byte-budgeted suffix of the active path (SPEC §4.7). */
export interface RecentHistoryResult {
  messages: SessionMessage[];
  truncated: boolean;
  totalContentBytes: number;
}
