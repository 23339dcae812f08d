import type {
  RecentHistoryResult,
  SearchResult,
  Session as ArborSession,
  SessionMessage,
  StoredCompaction,
} from "../session/index.js";
import { recentOnBranch, statsOnBranch, withTokens } from "./branch-reads.js";
import type { SessionsFeed } from "./change-feed.js";
import { isOverlayId, sameContent } from "./content.js";
import { stripReservedMetadata } from "./metadata.js";
import { mirrorListener } from "./mirror.js";
import type {
  AppendOptions,
  AppendResult,
  CompactionFunction,
  CompactResult,
  HistoryBatchReadOptions,
  HistoryReadOptions,
  SessionMirrorOptions,
  SessionRowStat,
  WriteOptions,
} from "./types.js";

/** What a handle shares with its `Sessions`. */
export interface HandleParts {
  session: ArborSession;
  feed: SessionsFeed;
  reserved: ReadonlySet<string>;
}

/**
 * One session of a `Sessions` store: reads (streamed, byte-budgeted), writes, branches,
 * compaction overlays and search, each a thin adapter over an Arbor `Session`
 * (docs/sessions-032.md). Get one from `sessions.session(id)`; handles are cached per id.
 */
export class SessionHandle {
  /** The session id; `""` is the default session. */
  readonly sessionId: string;
  readonly #session: ArborSession;
  readonly #feed: SessionsFeed;
  readonly #reserved: ReadonlySet<string>;

  /** @internal Made by `Sessions.session()` only. */
  constructor(sessionId: string, parts: HandleParts) {
    this.sessionId = sessionId;
    this.#session = parts.session;
    this.#feed = parts.feed;
    this.#reserved = parts.reserved;
  }

  // --- Compaction setup ---

  /** Registers the function `compact()` and auto-compaction call to summarize a branch. */
  onCompaction(compactFunction: CompactionFunction): this {
    this.#session.onCompaction(compactFunction);
    return this;
  }

  /** Compacts automatically after an insert once the branch's token estimate is above `tokenThreshold`. */
  compactAfter(tokenThreshold: number): this {
    this.#session.compactAfter(tokenThreshold);
    return this;
  }

  /** Keeps an in-memory transcript in step with this session's changes; returns the stop function. */
  mirror<M extends { id: string }>(
    options: SessionMirrorOptions<M>,
  ): () => void {
    return this.#feed.subscribe(mirrorListener(this.sessionId, options));
  }

  // --- Reads ---

  /** The path root → leaf (leaf → root with `newestFirst`), overlays applied, read in bounded windows. */
  history(
    options?: HistoryReadOptions,
  ): AsyncGenerator<SessionMessage, void, undefined> {
    const source = this.#session.history(options);
    return (async function* (): AsyncGenerator<
      SessionMessage,
      void,
      undefined
    > {
      yield* source;
    })();
  }

  /** `history()` in batches of at most `batchSize` messages (50) and `maxBatchBytes` bytes (4 MiB). */
  historyBatches(
    options?: HistoryBatchReadOptions,
  ): AsyncGenerator<SessionMessage[], void, undefined> {
    const source = this.#session.historyBatches(options);
    return (async function* (): AsyncGenerator<
      SessionMessage[],
      void,
      undefined
    > {
      yield* source;
    })();
  }

  /** The whole path to `leafId` (default the active leaf) as an array, overlays applied. */
  async getHistory(
    options: HistoryReadOptions = {},
  ): Promise<SessionMessage[]> {
    return this.#session.getHistory(options.leafId);
  }

  /** The longest recent suffix of the path within `maxContentBytes`, always at least the leaf. */
  async getRecentHistory(
    maxContentBytes: number,
    options: Pick<HistoryReadOptions, "leafId"> = {},
  ): Promise<RecentHistoryResult> {
    if (options.leafId)
      return recentOnBranch(this.#session, maxContentBytes, options.leafId);
    return this.#session.getRecentHistory(maxContentBytes, 1);
  }

  /** `{ id, role, bytes, tokenEstimate }` per row of the path, root → leaf. */
  async getHistoryRowStats(leafId?: string | null): Promise<SessionRowStat[]> {
    const stats = leafId ? null : await this.#session.getHistoryRowStats();
    if (stats) return stats.map(withTokens);
    return statsOnBranch(this.#session, leafId || undefined);
  }

  /** The stored message, or `null`. */
  async getMessage(id: string): Promise<SessionMessage | null> {
    return this.#session.getMessage(id);
  }

  /** The active leaf, or `null` in an empty session. */
  async getLatestLeaf(): Promise<SessionMessage | null> {
    return this.#session.getLatestLeaf();
  }

  /** The children of a message, oldest first. */
  async getBranches(messageId: string): Promise<SessionMessage[]> {
    return this.#session.getBranches(messageId);
  }

  /** Full-text search in this session: ranked, messages holding more of the terms first. */
  async search(
    query: string,
    options: { limit?: number } = {},
  ): Promise<SearchResult[]> {
    return this.#session.search(query, options);
  }

  // --- Writes ---

  /**
   * Appends a message; an id already stored writes nothing and returns the stored row with
   * `inserted: false`. An overlay id (`compaction_…`) is dropped without a write or an event.
   */
  async appendMessage(
    message: SessionMessage,
    options: AppendOptions = {},
  ): Promise<AppendResult> {
    if (isOverlayId(message)) return { inserted: false, message };
    const input = this.#incoming(message, options);
    // Noted before the write: its event may be read as soon as the write commits.
    await this.#noteParent(input, options.parentId);
    // The write itself says whether it stored the message, so of two concurrent appends of one
    // id exactly one reports `inserted: true` (a read before the write could not tell).
    const result = await this.#session
      .appendMessage(input, options.parentId)
      .catch((error: unknown) => {
        this.#feed.forgetParent(this.sessionId, input?.id);
        throw error;
      });
    // Nothing is written, so Arbor's feed, which reports committed writes only, has no event.
    if (!result.inserted) {
      this.#feed.forgetParent(this.sessionId, input.id);
      return { inserted: false, message: result.message };
    }
    const stored = (await this.#session.getMessage(input.id)) ?? result.message;
    this.#feed.note("append", this.sessionId, stored);
    return { inserted: true, message: stored };
  }

  /** Replaces a stored message; `null` when the id is absent. Unchanged content writes nothing. */
  async updateMessage(
    message: SessionMessage,
    options: WriteOptions = {},
  ): Promise<SessionMessage | null> {
    if (isOverlayId(message)) return null;
    const input = this.#incoming(message, options);
    const stored = await this.#session.getMessage(input.id);
    if (!stored) return null;
    if (sameContent(stored, input)) return stored;
    await this.#session.updateMessage(input);
    const written = await this.#session.getMessage(input.id);
    if (written) this.#feed.note("update", this.sessionId, written);
    return written;
  }

  /** Appends the message when its id is absent (`inserted: true`), else updates it. */
  async upsertMessage(
    message: SessionMessage,
    options: AppendOptions = {},
  ): Promise<AppendResult> {
    if (isOverlayId(message)) return { inserted: false, message };
    const input = this.#incoming(message, options);
    const stored = await this.#session.getMessage(input.id);
    if (stored && sameContent(stored, input))
      return { inserted: false, message: stored };
    if (!stored) await this.#noteParent(input, options.parentId);
    const outcome = await this.#session
      .upsertMessage(input, options.parentId)
      .catch((error: unknown) => {
        this.#feed.forgetParent(this.sessionId, input?.id);
        throw error;
      });
    const written = (await this.#session.getMessage(input.id)) ?? input;
    const inserted = outcome === "inserted";
    if (!inserted) this.#feed.forgetParent(this.sessionId, input.id);
    this.#feed.note(inserted ? "append" : "update", this.sessionId, written);
    return { inserted, message: written };
  }

  /**
   * Writes a message as it was written elsewhere: under `parentId` (`null` = a root), at
   * `createdAt` (epoch milliseconds, kept as the row's time). The message is stored as given:
   * `getMessage()` returns it without an added field. An id already stored writes nothing.
   * Overlay ids are imported as given, and reads keep such rows hidden.
   */
  async importMessage(
    message: SessionMessage,
    options: { parentId: string | null; createdAt: number | Date | string },
  ): Promise<void> {
    const { parentId, createdAt } = options ?? {};
    if (this.#feed.active && message && typeof message.id === "string")
      this.#feed.noteParent(
        this.sessionId,
        message.id,
        await this.#storedParent(parentId),
      );
    const time =
      typeof createdAt === "number" ? new Date(createdAt) : createdAt;
    // The package stores the message as given; the time is the row's (search results carry it).
    const imported = await this.#session.importMessage(message, {
      parentId,
      createdAt: time,
      timeInMessage: false,
    });
    if (imported && this.#feed.active) {
      const stored = (await this.#session.getMessage(message.id)) ?? message;
      this.#feed.note("import", this.sessionId, stored);
    }
  }

  /** Deletes messages; their children move up to the nearest surviving ancestor. */
  async deleteMessages(messageIds: string[]): Promise<void> {
    await this.#session.deleteMessages(messageIds);
  }

  /** Deletes every message and overlay of this session. */
  async clearMessages(): Promise<void> {
    await this.#session.clearMessages();
  }

  // --- Compaction overlays ---

  /** Stores an overlay that shows `summary` in place of `fromMessageId..toMessageId`. */
  async addCompaction(
    summary: string,
    fromMessageId: string,
    toMessageId: string,
  ): Promise<StoredCompaction> {
    const stored = await this.#session.addCompaction(
      summary,
      fromMessageId,
      toMessageId,
    );
    this.#feed.note("compaction", this.sessionId, stored);
    return stored;
  }

  /** Every overlay of this session, oldest first. */
  async getCompactions(): Promise<StoredCompaction[]> {
    return this.#session.getCompactions();
  }

  /**
   * Summarizes the active branch (or `leafId`'s) with the `onCompaction()` function and stores
   * the overlay. `null` when there was nothing to compact or the function failed (logged).
   */
  async compact(leafId?: string | null): Promise<CompactResult | null> {
    try {
      const result = await this.#session.compact(leafId);
      if (!result) return null;
      const { fromMessageId, toMessageId, summary } = result;
      return { fromMessageId, toMessageId, summary };
    } catch (error) {
      console.warn(
        `[arbor] [sessions] compact() failed in session "${this.sessionId}":`,
        error,
      );
      return null;
    }
  }

  // --- Internal helpers ---

  /**
   * For an append's event: the parent an explicit `parentId` stores the message under. Omitted,
   * the message goes after the active leaf, which the event leaves out.
   */
  async #noteParent(
    message: SessionMessage,
    parentId: string | null | undefined,
  ): Promise<void> {
    // A malformed message is left to the write, which rejects it with its typed error.
    if (
      !this.#feed.active ||
      parentId === undefined ||
      typeof message?.id !== "string"
    )
      return;
    this.#feed.noteParent(
      this.sessionId,
      message.id,
      await this.#storedParent(parentId),
    );
  }

  /** The parent a write under `parentId` stores its message under: a foreign id makes a root. */
  async #storedParent(
    parentId: string | null | undefined,
  ): Promise<string | null> {
    return typeof parentId === "string" &&
      (await this.#session.getMessage(parentId))
      ? parentId
      : null;
  }

  #incoming(message: SessionMessage, options: WriteOptions): SessionMessage {
    return options.source === "client"
      ? stripReservedMetadata(message, this.#reserved)
      : message;
  }
}
