import { utf8Length } from "./core/utf8.js";
import { encodeMessage } from "./core/message-codec.js";
import { runExclusive } from "./core/keyed-mutex.js";
import { queryTerms } from "./core/search-terms.js";
import { ArborError, ArborTypeError } from "./errors/index.js";
import type { SessionProvider } from "./provider.js";
import { AgentSessionProvider } from "./providers/agent/index.js";
import { isSqlProvider, type SqlProvider } from "./sql-provider.js";
import type {
  CompactionMeta,
  HistoryRowStat,
  RecentHistoryResult,
  SearchResult,
  SessionMessage,
  StoredCompaction,
} from "./types.js";

const DEFAULT_SEARCH_LIMIT = 20;

/** Options of the direct constructor (SPEC §3.4). Later capabilities add their options here. */
export interface SessionOptions {
  /** The session id the provider is scoped to, when the provider does not say (`provider.sessionId`). */
  sessionId?: string;
}

export interface SearchOptions {
  /** Most results to return; default 20. Values that are not positive integers mean 20. */
  limit?: number;
}

type Target =
  | { kind: "sql"; agent: SqlProvider }
  | { kind: "provider"; provider: SessionProvider };

/** Lets `Session.create()` hand a `sql` store to the constructor without widening its public type. */
const SQL_TARGET = Symbol("arbor.sqlTarget");
type InternalOptions = SessionOptions & { [SQL_TARGET]?: SqlProvider };

/**
 * A conversation stored as a tree of messages, read back as a linear history for any leaf, with
 * compaction overlays applied at read time and full-text search (SPEC §3–§6).
 *
 * Builder methods record configuration and return `this`; the first other call initializes the
 * session once. Every read and write returns a Promise, whatever the backend.
 *
 * @example
 * ```ts
 * import { Session } from "arbor/session";
 * import { openSqlite } from "arbor/sqlite";
 *
 * const session = Session.create(openSqlite("memory.db")).forSession("chat-1");
 * await session.appendMessage({ id: "u1", role: "user", parts: [{ type: "text", text: "Hi" }] });
 * const history = await session.getHistory();
 * ```
 */
export class Session {
  private readonly target: Target;
  private sessionId: string;
  private provider: SessionProvider | null = null;
  private warnedRecentFallback = false;

  /** Uses exactly the given provider: no auto-wiring (SPEC §3.4). */
  constructor(provider: SessionProvider, options: SessionOptions = {}) {
    if (typeof provider !== "object" || provider === null)
      throw invalidTarget();
    const agent = (options as InternalOptions)[SQL_TARGET];
    this.target = agent
      ? { kind: "sql", agent }
      : { kind: "provider", provider };
    this.sessionId = options.sessionId ?? provider.sessionId ?? "";
  }

  /**
   * A session over a `sql` store (Durable Object, `openSqlite()`) or any `SessionProvider`.
   * Performs no I/O.
   */
  static create(target: SqlProvider | SessionProvider): Session {
    if (typeof target !== "object" || target === null) throw invalidTarget();
    if (!isSqlProvider(target)) return new Session(target);
    const options: InternalOptions = { sessionId: "", [SQL_TARGET]: target };
    return new Session(target as unknown as SessionProvider, options);
  }

  // --- Builder ---

  /** Namespaces this session: rows carry `sessionId`, so many sessions can share one store. */
  forSession(sessionId: string): this {
    this.assertBuilder();
    if (typeof sessionId !== "string") {
      throw new ArborTypeError(
        "INVALID_ARGUMENT",
        "[arbor] forSession() takes a string id",
      );
    }
    this.sessionId = sessionId;
    return this;
  }

  // --- Messages ---

  /**
   * Inserts a message. `parentId`: omitted = after the latest leaf, `null` = a new root, a string
   * = under that message (a root, with a warning, if it is not in this session). Appending an
   * id that exists is a no-op: the first write wins.
   */
  async appendMessage(
    message: SessionMessage,
    parentId?: string | null,
  ): Promise<void> {
    encodeMessage(message);
    const provider = this.ready();
    await this.exclusive(async () => {
      if (
        typeof parentId === "string" &&
        (await provider.getMessage(parentId)) === null
      ) {
        console.warn(
          `[arbor] Parent "${parentId}" is not in session "${this.sessionId}"; message "${message.id}" is stored as a root`,
        );
      }
      await provider.appendMessage(message, parentId);
    });
  }

  /** Replaces the stored content of the message with the same id. Unknown ids are a no-op. */
  async updateMessage(message: SessionMessage): Promise<void> {
    encodeMessage(message);
    const provider = this.ready();
    await this.exclusive(async () => provider.updateMessage(message));
  }

  /** Deletes messages; children move up to the nearest surviving ancestor (SPEC §4.4). */
  async deleteMessages(ids: readonly string[]): Promise<void> {
    if (!Array.isArray(ids)) {
      throw new ArborTypeError(
        "INVALID_ARGUMENT",
        "[arbor] deleteMessages() takes an array of ids",
      );
    }
    const valid = ids.filter((id): id is string => typeof id === "string");
    if (valid.length === 0) return;
    const provider = this.ready();
    await this.exclusive(async () => provider.deleteMessages(valid));
  }

  /** Deletes every message, overlay and index row of this session. Other sessions are untouched. */
  async clearMessages(): Promise<void> {
    const provider = this.ready();
    await this.exclusive(async () => provider.clearMessages());
  }

  /** The stored message, without overlays, or `null`. */
  async getMessage(id: string): Promise<SessionMessage | null> {
    if (typeof id !== "string" || id === "") return null;
    return (await this.ready().getMessage(id)) ?? null;
  }

  /** The path root → `leafId` (latest leaf by default) with compaction overlays applied. */
  async getHistory(leafId?: string | null): Promise<SessionMessage[]> {
    if (leafId !== undefined && leafId !== null && typeof leafId !== "string")
      return [];
    return this.ready().getHistory(leafId || undefined);
  }

  /** The most recently inserted leaf, raw, or `null`. */
  async getLatestLeaf(): Promise<SessionMessage | null> {
    return (await this.ready().getLatestLeaf()) ?? null;
  }

  /** Children of a message, oldest first: the answers a regenerate produced, for example. */
  async getBranches(messageId: string): Promise<SessionMessage[]> {
    if (typeof messageId !== "string") return [];
    return this.ready().getBranches(messageId);
  }

  /** Number of stored rows on the path (overlays do not reduce it). */
  async getPathLength(leafId?: string | null): Promise<number> {
    if (leafId !== undefined && leafId !== null && typeof leafId !== "string")
      return 0;
    return this.ready().getPathLength(leafId || undefined);
  }

  /** A suffix of the active path that fits `maxContentBytes` (SPEC §4.7). */
  async getRecentHistory(
    maxContentBytes: number,
    minRecentMessages = 1,
  ): Promise<RecentHistoryResult> {
    const provider = this.ready();
    if (provider.getRecentHistory) {
      return provider.getRecentHistory(
        undefined,
        maxContentBytes,
        minRecentMessages,
      );
    }
    if (!this.warnedRecentFallback) {
      this.warnedRecentFallback = true;
      console.warn(
        "[arbor] The session provider has no getRecentHistory(); the full history is returned and the byte budget is not enforced",
      );
    }
    const messages = await provider.getHistory();
    let totalContentBytes = 0;
    for (const message of messages)
      totalContentBytes += utf8Length(JSON.stringify(message));
    return { messages, truncated: false, totalContentBytes };
  }

  /** `{ id, role, bytes }` for each row of the active path, or `null` if the provider cannot tell. */
  async getHistoryRowStats(): Promise<HistoryRowStat[] | null> {
    const provider = this.ready();
    return provider.getHistoryRowStats ? provider.getHistoryRowStats() : null;
  }

  // --- Compaction overlays ---

  /** Stores an overlay that replaces `fromMessageId..toMessageId` with `summary` at read time. */
  async addCompaction(
    summary: string,
    fromMessageId: string,
    toMessageId: string,
    meta?: CompactionMeta,
  ): Promise<StoredCompaction> {
    for (const [name, value] of [
      ["summary", summary],
      ["fromMessageId", fromMessageId],
      ["toMessageId", toMessageId],
    ] as const) {
      if (typeof value !== "string" || value === "") {
        throw new ArborTypeError(
          "INVALID_ARGUMENT",
          `[arbor] addCompaction() needs a non-empty string \`${name}\``,
        );
      }
    }
    return this.ready().addCompaction(
      summary,
      fromMessageId,
      toMessageId,
      meta,
    );
  }

  /** Every overlay of this session, superseded ones included, oldest first. */
  async getCompactions(): Promise<StoredCompaction[]> {
    return this.ready().getCompactions();
  }

  /** Deletes one overlay; the messages (or the older summary) it covered reappear. */
  async removeCompaction(id: string): Promise<boolean> {
    const provider = this.ready();
    if (!provider.deleteCompaction) {
      throw new ArborError(
        "NOT_SUPPORTED",
        "Session provider does not support removing compactions",
      );
    }
    return provider.deleteCompaction(id);
  }

  // --- Search ---

  /** Full-text search in this session: every term must match, in any order (SPEC §5). */
  async search(
    query: string,
    options: SearchOptions = {},
  ): Promise<SearchResult[]> {
    const provider = this.ready();
    if (!provider.searchMessages) {
      throw new ArborError(
        "NOT_SUPPORTED",
        "Session provider does not support search",
      );
    }
    if (queryTerms(query).length === 0) return [];
    const limit =
      Number.isInteger(options.limit) && (options.limit as number) > 0
        ? (options.limit as number)
        : DEFAULT_SEARCH_LIMIT;
    return provider.searchMessages(query, limit);
  }

  // --- Internal helpers ---

  /** Resolves the provider on first use (SPEC §3.3). */
  private ready(): SessionProvider {
    if (this.provider) return this.provider;
    const provider =
      this.target.kind === "sql"
        ? new AgentSessionProvider(this.target.agent, this.sessionId)
        : scopeProvider(this.target.provider, this.sessionId);
    this.provider = provider;
    return provider;
  }

  private assertBuilder(): void {
    if (this.provider !== null) throw alreadyInitialized();
  }

  private exclusive<T>(task: () => Promise<T>): Promise<T> {
    const provider = this.ready();
    return runExclusive(
      provider.storeIdentity ?? provider,
      this.sessionId,
      task,
    );
  }
}

function scopeProvider(
  provider: SessionProvider,
  sessionId: string,
): SessionProvider {
  if ((provider.sessionId ?? "") === sessionId) return provider;
  if (provider.forSession) return provider.forSession(sessionId);
  throw new ArborError(
    "NOT_SUPPORTED",
    `[arbor] forSession("${sessionId}") needs a provider with forSession(); pass a provider scoped to that session instead`,
  );
}

function invalidTarget(): TypeError {
  return new ArborTypeError(
    "INVALID_TARGET",
    "Session.create() requires a SqlProvider or SessionProvider",
  );
}

function alreadyInitialized(): Error {
  return new ArborError(
    "SESSION_ALREADY_INITIALIZED",
    "Session is already initialized; use addContext() for runtime blocks",
  );
}
