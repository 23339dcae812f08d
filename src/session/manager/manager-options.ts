import type { MatchMode, PrefixMode } from "../contracts/types.js";
import type { SearchMode } from "../embeddings/types.js";
import type {
  AnyContextProvider,
  WritableContextProvider,
} from "../contracts/context-provider.js";
import type { SessionContextOptions } from "../context/types.js";

/** A context provider, or a function making one per session (Arbor extension). */
export type ProviderOrFactory<T> = T | ((sessionId: string) => T);

/** `withContext` options of a manager: `provider` may be a per-session factory. */
export interface ManagerContextOptions extends Omit<
  SessionContextOptions,
  "provider"
> {
  provider?: ProviderOrFactory<AnyContextProvider>;
}

/** Where each managed session keeps its frozen prompt: `null` for per-session rows. */
export type CachedPromptSetting =
  ProviderOrFactory<WritableContextProvider> | null;

export interface SessionManagerOptions {
  /** With a key, exported snapshots are signed (HMAC-SHA256) and imports must carry a valid signature. */
  snapshotKey?: string;
  /** How many Session objects `getSession()` keeps (least recently used ones are dropped). Default 256. */
  maxCachedSessions?: number;
}

export interface CreateSessionOptions {
  /**
   * The new session's id (default: a random UUID). An id that already has a session throws
   * `SESSION_EXISTS` and writes nothing; deriving it from a request's retry key makes a retried
   * create find its first write (the HTTP API does this for an `Idempotency-Key`).
   */
  id?: string;
  parentSessionId?: string;
  model?: string;
  source?: string;
  /** Binds the session to a user or tenant (docs/behavior/manager.md). */
  ownerId?: string;
  metadata?: Record<string, string>;
}

/** Options of `SessionManager.fork`. */
export interface ForkOptions {
  /** Keep the copied messages' ids (default: new ids, so the fork's ids are its own). */
  preserveIds?: boolean;
  /**
   * The fork's session id (default: a random UUID). Makes a fork retryable: when `newId` already
   * holds a fork of the same session (an earlier call whose answer was lost), that fork is
   * returned, completed first when the earlier call stopped before copying; any other session
   * under `newId` throws `SESSION_EXISTS`.
   */
  newId?: string;
}

export interface ListSessionsOptions {
  ownerId?: string;
  limit?: number;
  /** From a previous `listPage()`. */
  cursor?: string;
  /**
   * By the session that started them (`parent_session_id`): a session id lists the sessions it
   * started (a fork, a subagent run, a compact-and-split); `null` the top level, sessions without
   * a parent or whose parent is not listed (erased, or another owner's under `ownerId`).
   */
  parentSessionId?: string | null;
}

export interface ManagerSearchOptions {
  limit?: number;
  /** `"text"` (default without embeddings), `"semantic"` or `"hybrid"` (default with them); docs/search.md. */
  mode?: SearchMode;
  sessionIds?: readonly string[];
  ownerId?: string;
  /** `"any"` (default): ranked any-term retrieval, all-term matches first; `"all"`: every term must match. */
  match?: MatchMode;
  /**
   * Which terms match as the start of a word: `true` or `"last"` the last term ("launch budg"
   * finds "launch budget"), `"all"` every term; default whole words (docs/search.md#prefix-search).
   */
  prefix?: boolean | PrefixMode;
  /** Only messages created at or after this instant (a `Date` or ISO-8601 string). */
  since?: string | Date;
  /** Only messages created before this instant (a `Date` or ISO-8601 string). */
  until?: string | Date;
  /** The moment relative times in the query count from; default the time of the search. */
  now?: string | Date;
  /** The IANA time zone the query's dates are meant in; default `"UTC"`. */
  timeZone?: string;
  /** Neighbouring turns per hit, before and after it on its branch (0 to 10; default 0). */
  context?: number;
}

export interface ImportSessionOptions {
  ownerId?: string;
  name?: string;
  /** Give the session a fresh id instead of the snapshot's. */
  newId?: boolean;
  /**
   * The id to give the session instead of the snapshot's (wins over `newId`). A taken id throws
   * `SESSION_EXISTS`, also when another process takes it at the same moment; the import pipeline
   * derives it from the conversation's identity, so concurrent imports of one conversation make
   * one session.
   */
  id?: string;
  /** Allow binding a snapshot of another owner to `ownerId`. */
  rebind?: boolean;
}

/** Options of `SessionManager.appendToExisting()`. */
export interface AppendToExistingOptions {
  /**
   * A `parentId` that is not in the session throws `MESSAGE_NOT_FOUND` and nothing is written,
   * where an append would store the message as a root (what the HTTP server's `parentId` needs).
   */
  parentMustExist?: boolean;
}
