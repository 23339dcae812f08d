/*
 * The declared seam between a Session and the layers that hold it for someone else: the
 * SessionManager (which opens its sessions and keeps them), and the adapters built on a manager's
 * sessions (the HTTP server's history route, `arbor-memory/sessions`, `arbor-memory/ai-sdk`).
 * What they may do with a Session beyond its public API is exactly this interface: one typed
 * object per Session, obtained with `sessionSeam(session)` (session.ts) when the session is opened,
 * instead of reaching into its state. Not public API.
 */
import type { AppendChecks, AppendMessageResult } from "./session-writes.js";
import type { AfterWrite } from "./session-runtime.js";
import type { SessionParts, SessionPlan } from "./session-setup.js";
import type { EmbeddingHandle } from "../embeddings/embedding-handle.js";
import type {
  ChangeListener,
  Unsubscribe,
  WatchChangesOptions,
} from "../contracts/changes.js";
import type { SessionMessage } from "../contracts/types.js";
import type { BackendStreams } from "../contracts/chat-streams.js";

/** A Session as its manager (and the layers above a manager) reach it. */
export interface SessionSeam {
  /**
   * The session's provider and its tree (reads with the active leaf), set up on first use and
   * after the skill restore scan: what prune plans from and what search hits are placed in.
   */
  ready(): Promise<Pick<SessionParts, "provider" | "tree">>;

  /**
   * Where the blocks created at run time and stored with the session come from: read on every
   * load of the blocks (manager/created-blocks.ts). Set in builder state.
   */
  storedBlocks(read: SessionPlan["stored"]): void;

  /** Hears every write of the session (the manager bumps its registry row). */
  onWrite(hook: AfterWrite): void;

  /** Recall through the manager's embedding handle; nothing is opened yet. */
  attachEmbeddings(handle: EmbeddingHandle): void;

  /** Ends recall through `handle`, if the session still uses it (`removeEmbeddings()`). */
  detachEmbeddings(handle: EmbeddingHandle): void;

  /** Whether the provider's insert checks the registry itself (`insertChecksRegistry`). */
  insertChecksRegistry(): Promise<boolean>;

  /** Whether the provider's insert checks a given parent itself (`insertChecksParent`). */
  insertChecksParent(): Promise<boolean>;

  /**
   * `appendMessage()` with checks its write makes (`SessionManager.appendToExisting`):
   * `requireRegistered` writes only if the session has its registry row, checked by the insert
   * itself (for a provider that declares `insertChecksRegistry`), and answers `null`, with nothing
   * written, when it has none; `requireParent` throws `MESSAGE_NOT_FOUND`, with nothing written,
   * when a given parent is not in the session (`SessionWrites.appendChecked`).
   */
  appendChecked(
    message: SessionMessage,
    parentId: string | null | undefined,
    checks: AppendChecks,
  ): Promise<AppendMessageResult | null>;

  /** Watches every session of the session's store through its provider's feed. */
  watchStore(
    listener: ChangeListener,
    options?: WatchChangesOptions,
  ): Unsubscribe;

  /**
   * Runs an erase step of the session under its in-process append lock; the step calls
   * `erasing()` before it writes, which bumps the session's erase epoch (state/store-runtime.ts).
   */
  eraseExclusive<T>(task: (erasing: () => void) => Promise<T>): Promise<T>;

  /** Forgets the incremental branch estimate after some of its messages were erased. */
  invalidateEstimate(): void;

  /**
   * The active branch's history and its leaf id in one read when the path is within `within`,
   * else `null` (`SessionTree.activeHistoryWithin`): how `GET /v1/sessions/{id}/history` answers
   * a small history whole and streams a larger one.
   */
  activeHistoryWithin(within: {
    messages: number;
    bytes: number;
  }): Promise<{ messages: SessionMessage[]; leafId: string | null } | null>;
}

/** A SessionManager as the layers above it reach it: `managerSeam(manager)` (session-manager.ts). */
export interface ManagerSeam {
  /** The chat streams of the manager's store, when it has them (`arbor-memory/ai-sdk`). */
  readonly streams: BackendStreams | undefined;
}
