import type {
  Backend,
  SessionMessage,
  SessionProvider,
  SqlProvider,
  StoredCompaction,
} from "../session/index.js";

/**
 * What `new Sessions(store)` runs on: a `Backend` (`postgresBackend(client)` from
 * `arbor-memory/postgres`, `sqliteBackend(file)`, `memoryBackend()`), a `sql` store (a Durable
 * Object, `openSqlite()`), or any `SessionProvider` (`InMemorySessionProvider`,
 * `PostgresSessionProvider`). A PostgreSQL client itself is refused: wrap it in
 * `postgresBackend(client)`.
 */
export type SessionsStore = SqlProvider | SessionProvider | Backend;

/** Options of `new Sessions(store, options)`. */
export interface SessionsOptions {
  /** Message-metadata keys only server-side writers may set: stripped from writes with `source: "client"`. Default none. */
  readonly reservedMetadataKeys?: readonly string[];
}

/** Who wrote a message: `"client"` marks untrusted input, whose reserved metadata keys are stripped. */
export interface WriteOptions {
  /** Default `"server"`. */
  source?: "client" | "server";
}

/** Options of `appendMessage()` and `upsertMessage()`. */
export interface AppendOptions extends WriteOptions {
  /** Omitted: after the active leaf. `null`: a new root. A string: under that message (a root if it is not in this session). */
  parentId?: string | null;
}

/** What `appendMessage()` and `upsertMessage()` return. */
export interface AppendResult {
  /** `false` when the id was already stored (an append then writes nothing). */
  inserted: boolean;
  /** The message as stored. */
  message: SessionMessage;
}

/** Options of the history reads. */
export interface HistoryReadOptions {
  /** The leaf whose path is read; default the active leaf. */
  leafId?: string | null;
  /** Checked between windows: aborting rejects the iteration. */
  signal?: AbortSignal;
  /** Leaf → root instead of root → leaf. */
  newestFirst?: boolean;
}

/** Options of `historyBatches()`. */
export interface HistoryBatchReadOptions extends HistoryReadOptions {
  /** Most messages per batch. Default 50. */
  batchSize?: number;
  /** Most bytes of stored JSON per batch; a larger message comes alone. Default 4 MiB. */
  maxBatchBytes?: number;
}

/** One row of the path, read without its content (`getHistoryRowStats()`). */
export interface SessionRowStat {
  id: string;
  role: string;
  /** UTF-8 size of the stored JSON. */
  bytes: number;
  /** Tokens estimated from `bytes` at read time (4 bytes a token); no per-row estimate is stored. */
  tokenEstimate: number;
}

/** One event of `Sessions.subscribe()`, after the write it reports is stored. */
export type SessionChangeEvent =
  | {
      type: "append";
      sessionId: string;
      message: SessionMessage;
      /**
       * For an append through this adapter with an explicit `parentId`: the parent the message was
       * stored under (`null` = a root, also for a parent not in the session). Absent for an append
       * after the active leaf, and for another writer's append.
       */
      parentId?: string | null;
      /** Always `true`: an append of an id already stored writes nothing and reports nothing. */
      inserted: boolean;
    }
  | { type: "update"; sessionId: string; message: SessionMessage }
  | { type: "delete"; sessionId: string; messageIds: string[] }
  | { type: "clear"; sessionId: string }
  | { type: "compact"; sessionId: string }
  | {
      type: "import";
      sessionId: string;
      message: SessionMessage;
      parentId: string | null;
    }
  | { type: "compaction"; sessionId: string; compaction: StoredCompaction };

/** Receives change events; a returned Promise is awaited before the next event is delivered. */
export type SessionChangeListener = (
  event: SessionChangeEvent,
) => void | Promise<void>;

/** How `session.mirror()` keeps an in-memory transcript in step with one session's changes. */
export interface SessionMirrorOptions<M extends { id: string }> {
  /** The cached transcript; read on every event, so a host may reassign its array. */
  get(): M[];
  /** Installs a new array: after a delete, or emptied by a clear. */
  set(messages: M[]): void;
  /** The cached form of a stored message. Default: the stored message. */
  transform?(message: SessionMessage): M;
  /** Handles an event instead of the default reduction; returns `true` when it did. */
  intercept?(event: SessionChangeEvent): boolean | Promise<boolean>;
  /** After an append or update was written to the cache; `previous` is the entry it replaced. */
  onApplied?(
    event: Extract<SessionChangeEvent, { type: "append" | "update" }>,
    message: M,
    previous: M | undefined,
  ): void;
}

/** What `onCompaction()` takes: summarizes a branch into an overlay range, or `null` for nothing to do. */
export type CompactionFunction = (
  messages: SessionMessage[],
) => Promise<CompactResult | null>;

/** The overlay a compaction function asks for. */
export interface CompactResult {
  /** First message of the summarized range. */
  fromMessageId: string;
  /** Last message of the summarized range. */
  toMessageId: string;
  /** The text shown in place of the range. */
  summary: string;
}

/** Options of `createCompactFunction()`. */
export interface CompactOptions {
  /** Turns a prompt into a summary, for example a model call. */
  summarize: (prompt: string) => Promise<string>;
  /** Token budget of the recent tail kept verbatim. Default 20,000. */
  keepRecentTokens?: number;
}
