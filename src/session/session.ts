import type { WriteSource } from "./context/context-blocks.js";
import {
  isSkillProvider,
  type WritableContextProvider,
} from "./contracts/context-provider.js";
import { reclaimSkill, reclaimWithinMessage } from "./context/skills.js";
import { buildContextTools, type ArborToolSet } from "./context/tools/index.js";
import type {
  ContextBlock,
  ContextConfig,
  SessionContextOptions,
} from "./context/types.js";
import type { BlockVersion } from "./contracts/block-history.js";
import { latestLeafId } from "./core/branch-pointer.js";
import { runExclusive } from "./core/keyed-mutex.js";
import { encodeMessage } from "./core/message-codec.js";
import { queryTerms } from "./core/search-terms.js";
import { utf8Length } from "./core/utf8.js";
import { ArborError, ArborTypeError } from "./errors/index.js";
import type { SessionProvider } from "./contracts/provider.js";
import {
  assertNewLabel,
  hasSkillBlocks,
  providerForRuntimeBlock,
  setUpSession,
  type SessionParts,
  type SessionPlan,
} from "./session-setup.js";
import { assertSnapshot } from "./snapshot/snapshot.js";
import { type SessionSnapshot } from "./contracts/session-info.js";
import { AuditRecorder } from "./audit/audit-recorder.js";
import {
  type AuditEvent,
  type AuditOptions,
  type AuditSink,
  type RecordedContext,
} from "./contracts/audit.js";
import { isSqlProvider, type SqlProvider } from "./contracts/sql-provider.js";
import {
  messageOf,
  StatusEmitter,
  type SessionEventListener,
} from "./status.js";
import type {
  CompactAfterOptions,
  CompactionErrorHandler,
  CompactionMeta,
  HistoryRowStat,
  RecentHistoryResult,
  SearchResult,
  SessionMessage,
  SessionTokenCounter,
  StoredCompaction,
} from "./contracts/types.js";
import type { CompactResult } from "../utils/compaction/compact-function.js";
import {
  enforceRowSizeLimit,
  ROW_MAX_BYTES,
} from "../utils/truncation/row-size-limit.js";
import {
  SessionCompaction,
  type CompactionFunction,
  type CompactionHost,
} from "./compaction/session-compaction.js";

const DEFAULT_SEARCH_LIMIT = 20;

/** Options of the direct constructor (SPEC §3.4): exactly these pieces, no auto-wiring. */
export interface SessionOptions {
  /** Context blocks; a config without provider is an empty read-only block. */
  context?: ContextConfig[];
  /** Persists the frozen system prompt. */
  promptStore?: WritableContextProvider;
  /** The session id the provider is scoped to, when the provider does not say (`provider.sessionId`). */
  sessionId?: string;
  /** Replaces the heuristic token estimate for auto-compaction and status (SPEC §6.4). */
  tokenCounter?: SessionTokenCounter;
  /** Receives auto-compaction failures. */
  onCompactionError?: CompactionErrorHandler;
  /** Row-size limit applied on append and update (SPEC §6.9); default 1,800,000; `false` disables. */
  maxRowBytes?: number | false;
}

export interface SearchOptions {
  /** Most results to return; default 20. Values that are not positive integers mean 20. */
  limit?: number;
}

/** Lets `Session.create()` hand a `sql` store to the constructor without widening its public type. */
const SQL_TARGET = Symbol("arbor.sqlTarget");
type InternalOptions = SessionOptions & { [SQL_TARGET]?: SqlProvider };

/**
 * A conversation stored as a tree of messages, read back as a linear history for any leaf, with
 * compaction overlays applied at read time, context blocks rendered into a cacheable system
 * prompt, AI tools for the model to manage its memory, and full-text search (SPEC §3–§9).
 *
 * Builder methods record configuration and return `this`; the first other call initializes the
 * session once. Every read and write returns a Promise, whatever the backend.
 *
 * @example
 * ```ts
 * import { Session } from "arbor-memory/session";
 * import { openSqlite } from "arbor-memory/sqlite";
 *
 * const session = Session.create(openSqlite("memory.db"))
 *   .forSession("chat-1")
 *   .withContext("soul", { provider: { get: async () => "You are a helpful assistant." } })
 *   .withContext("memory", { description: "Learned facts", maxTokens: 1100 })
 *   .withCachedPrompt();
 *
 * await session.appendMessage({ id: "u1", role: "user", parts: [{ type: "text", text: "Hi" }] });
 * const system = await session.freezeSystemPrompt();
 * const tools = await session.tools(); // set_context for "memory"
 * ```
 */
export class Session {
  private readonly plan: SessionPlan;
  private parts: SessionParts | null = null;
  private restoring: Promise<void> | null = null;
  private readonly status: StatusEmitter;
  private readonly compaction = new SessionCompaction();
  private readonly maxRowBytes: number | false;
  private warnedRecentFallback = false;
  private audit: AuditRecorder | null = null;
  /** Set by a SessionManager: bumps the registry's `updated_at` after each write. */
  private afterWrite: (() => unknown) | undefined;

  /** Uses exactly the given provider and options: no auto-wiring (SPEC §3.4). */
  constructor(provider: SessionProvider, options: SessionOptions = {}) {
    if (typeof provider !== "object" || provider === null)
      throw invalidTarget();
    const agent = (options as InternalOptions)[SQL_TARGET];
    const context = options.context ?? [];
    context.reduce<string[]>((labels, config) => {
      assertNewLabel(labels, config.label);
      return [...labels, config.label];
    }, []);
    this.plan = {
      target: agent ? { kind: "sql", agent } : { kind: "provider", provider },
      sessionId: options.sessionId ?? provider.sessionId ?? "",
      context: [...context],
      promptStore: options.promptStore,
      direct: agent === undefined,
    };
    this.compaction.tokenCounter = options.tokenCounter;
    this.compaction.errorHandler = options.onCompactionError;
    this.maxRowBytes = options.maxRowBytes ?? ROW_MAX_BYTES;
    const broadcast =
      agent && typeof agent.broadcast === "function" ? agent.broadcast : null;
    this.status = new StatusEmitter(
      broadcast ? (message) => broadcast.call(agent, message) : null,
    );
  }

  /**
   * A session over a `sql` store (Durable Object, `openSqlite()`) or any `SessionProvider`, with
   * auto-wired context blocks. Performs no I/O.
   */
  static create(target: SqlProvider | SessionProvider): Session {
    if (typeof target !== "object" || target === null) throw invalidTarget();
    if (isSqlProvider(target)) {
      const options: InternalOptions = { sessionId: "", [SQL_TARGET]: target };
      return new Session(target as unknown as SessionProvider, options);
    }
    const session = new Session(target);
    session.plan.direct = false;
    return session;
  }

  // --- Builder: records only; throws after initialization ---

  /** Namespaces this session: rows carry `sessionId`, so many sessions can share one store. */
  forSession(sessionId: string): this {
    this.assertBuilder();
    if (typeof sessionId !== "string") {
      throw new ArborTypeError(
        "INVALID_ARGUMENT",
        "[arbor] forSession() takes a string id",
      );
    }
    this.plan.sessionId = sessionId;
    return this;
  }

  /**
   * Adds a context block. Without a provider it is auto-wired: a row in the `sql` store, or the
   * provider's `createContextProvider()` hook.
   */
  withContext(label: string, options: SessionContextOptions = {}): this {
    this.assertBuilder();
    assertNewLabel(
      this.plan.context.map((config) => config.label),
      label,
    );
    this.plan.context.push({ label, ...options });
    return this;
  }

  /** Persists the frozen system prompt, so a restarted session serves the same prompt. */
  withCachedPrompt(provider?: WritableContextProvider): this {
    this.assertBuilder();
    this.plan.promptStore = provider ?? null;
    return this;
  }

  /**
   * Records every write, overlay, prompt and skill unload to `sink` (SPEC §15.5), in order, without
   * ever blocking or failing the session's own operations. With `includeContext`,
   * `recordContext()` records what was sent to the model.
   */
  withAudit(sink: AuditSink, options: AuditOptions = {}): this {
    this.assertBuilder();
    if (typeof sink?.record !== "function") {
      throw new ArborTypeError(
        "INVALID_ARGUMENT",
        "[arbor] withAudit() needs a sink with a record(event) method",
      );
    }
    this.audit = new AuditRecorder(sink, options);
    return this;
  }

  /**
   * Registers the compaction function (for example `createCompactFunction({ summarize })`).
   * May be called at any time.
   */
  onCompaction(compactFunction: CompactionFunction): this {
    if (typeof compactFunction !== "function") {
      throw new ArborTypeError(
        "INVALID_ARGUMENT",
        "[arbor] onCompaction() takes a function",
      );
    }
    this.compaction.compactFunction = compactFunction;
    return this;
  }

  /**
   * Compacts automatically when, after an insert, the token estimate is above `threshold`.
   * `options.tokenCounter` replaces the heuristic for the decision and for the compaction function.
   */
  compactAfter(threshold: number, options: CompactAfterOptions = {}): this {
    if (
      typeof threshold !== "number" ||
      !Number.isFinite(threshold) ||
      threshold < 0
    ) {
      throw new ArborTypeError(
        "INVALID_ARGUMENT",
        "[arbor] compactAfter() takes a finite, non-negative token threshold",
      );
    }
    this.compaction.configureAfter(threshold, options);
    return this;
  }

  /** Receives auto-compaction failures; a throwing handler is logged and swallowed. */
  onCompactionError(handler: CompactionErrorHandler): this {
    this.compaction.errorHandler = handler;
    return this;
  }

  /** Receives status and error events (SPEC §13), for any backend. Returns an unsubscribe function. */
  onStatus(listener: SessionEventListener): () => void {
    return this.status.subscribe(listener);
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
    const json = encodeMessage(message);
    const parts = await this.ready();
    const { provider } = parts;
    const stored = this.prepareForStorage(message, json);
    const estimator = this.compaction.estimator;
    let inserted = false;
    await this.exclusive(provider, async () => {
      let parent: string | null | undefined = parentId;
      if (
        typeof parentId === "string" &&
        (await provider.getMessage(parentId)) === null
      ) {
        console.warn(
          `[arbor] Parent "${parentId}" is not in session "${this.plan.sessionId}"; message "${message.id}" is stored as a root`,
        );
        parent = null;
      }
      if (parent === undefined && estimator.cachedLeafId !== undefined) {
        parent = await latestLeafId(provider);
      }
      if (parent === undefined && this.audit)
        parent = await latestLeafId(provider);
      inserted = (await provider.appendMessage(stored, parentId)) !== false;
      if (inserted) estimator.appended(stored, parent ?? null);
      if (inserted)
        this.record("append", { message: stored, parentId: parent ?? null });
    });
    if (inserted) await this.afterWrite?.();
    const estimate = await this.emitIdle();
    if (inserted) await this.compaction.afterInsert(this.host(parts), estimate);
  }

  /** Replaces the stored content of the message with the same id. Unknown ids are a no-op. */
  async updateMessage(message: SessionMessage): Promise<void> {
    const json = encodeMessage(message);
    const { provider } = await this.ready();
    const stored = this.prepareForStorage(message, json);
    await this.exclusive(provider, async () => {
      const existed = this.audit
        ? (await provider.getMessage(stored.id)) !== null
        : false;
      await provider.updateMessage(stored);
      if (existed) this.record("update", { message: stored });
    });
    this.compaction.estimator.invalidate();
    await this.afterWrite?.();
    await this.emitIdle();
  }

  /** Deletes messages; children move up to the nearest surviving ancestor (SPEC §4.4). */
  async deleteMessages(ids: readonly string[]): Promise<void> {
    if (!Array.isArray(ids)) {
      throw new ArborTypeError(
        "INVALID_ARGUMENT",
        "[arbor] deleteMessages() takes an array of ids",
      );
    }
    const { provider } = await this.ready();
    const valid = ids.filter((id): id is string => typeof id === "string");
    if (valid.length > 0) {
      await this.exclusive(provider, async () =>
        provider.deleteMessages(valid),
      );
      this.record("delete", { ids: valid });
    }
    this.compaction.estimator.invalidate();
    await this.afterWrite?.();
    await this.emitIdle();
  }

  /**
   * Deletes every message, overlay and index row of this session, forgets loaded skills and
   * re-renders the system prompt. Other sessions and block contents are untouched.
   */
  async clearMessages(): Promise<void> {
    const { provider, skills, prompt } = await this.ready();
    await this.exclusive(provider, async () => provider.clearMessages());
    this.record("clear", {});
    this.compaction.estimator.invalidate();
    skills.clear();
    await prompt.refresh();
    await this.afterWrite?.();
    await this.emitIdle();
  }

  /** The stored message, without overlays, or `null`. */
  async getMessage(id: string): Promise<SessionMessage | null> {
    const { provider } = await this.ready();
    if (typeof id !== "string" || id === "") return null;
    return (await provider.getMessage(id)) ?? null;
  }

  /** The path root → `leafId` (latest leaf by default) with compaction overlays applied. */
  async getHistory(leafId?: string | null): Promise<SessionMessage[]> {
    const { provider } = await this.ready();
    if (leafId !== undefined && leafId !== null && typeof leafId !== "string")
      return [];
    return provider.getHistory(leafId || undefined);
  }

  /** The most recently inserted leaf, raw, or `null`. */
  async getLatestLeaf(): Promise<SessionMessage | null> {
    const { provider } = await this.ready();
    return (await provider.getLatestLeaf()) ?? null;
  }

  /** Children of a message, oldest first: the answers a regenerate produced, for example. */
  async getBranches(messageId: string): Promise<SessionMessage[]> {
    const { provider } = await this.ready();
    if (typeof messageId !== "string") return [];
    return provider.getBranches(messageId);
  }

  /** Number of stored rows on the path (overlays do not reduce it). */
  async getPathLength(leafId?: string | null): Promise<number> {
    const { provider } = await this.ready();
    if (leafId !== undefined && leafId !== null && typeof leafId !== "string")
      return 0;
    return provider.getPathLength(leafId || undefined);
  }

  /** A suffix of the active path that fits `maxContentBytes` (SPEC §4.7). */
  async getRecentHistory(
    maxContentBytes: number,
    minRecentMessages = 1,
  ): Promise<RecentHistoryResult> {
    const { provider } = await this.ready();
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
    const { provider } = await this.ready();
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
    const { provider } = await this.ready();
    const stored = await provider.addCompaction(
      summary,
      fromMessageId,
      toMessageId,
      meta,
    );
    this.compaction.estimator.invalidate();
    this.record("compaction", { compaction: stored });
    return stored;
  }

  /** Every overlay of this session, superseded ones included, oldest first. */
  async getCompactions(): Promise<StoredCompaction[]> {
    const { provider } = await this.ready();
    return provider.getCompactions();
  }

  /** Deletes one overlay; the messages (or the older summary) it covered reappear. */
  async removeCompaction(id: string): Promise<boolean> {
    const { provider } = await this.ready();
    if (!provider.deleteCompaction) {
      throw new ArborError(
        "NOT_SUPPORTED",
        "Session provider does not support removing compactions",
      );
    }
    const removed = await provider.deleteCompaction(id);
    this.compaction.estimator.invalidate();
    return removed;
  }

  /**
   * Summarizes older messages of the active branch (or of `leafId`'s branch) with the function
   * given to `onCompaction()`, stores the overlay and refreshes the system prompt. Returns the
   * stored range, or `null` when there was nothing to compact. Errors are rethrown.
   */
  async compact(leafId?: string | null): Promise<CompactResult | null> {
    const parts = await this.ready();
    return this.compaction.compact(this.host(parts), leafId);
  }

  // --- Search ---

  /** Full-text search in this session: every term must match, in any order (SPEC §5). */
  async search(
    query: string,
    options: SearchOptions = {},
  ): Promise<SearchResult[]> {
    const { provider } = await this.ready();
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

  // --- Context blocks ---

  /** A copy of a loaded block, or `null` before blocks load (see `loadContext()`). */
  getContextBlock(label: string): ContextBlock | null {
    return this.parts?.blocks.get(label) ?? null;
  }

  /** Copies of the loaded blocks, `[]` before blocks load (see `loadContext()`). */
  getContextBlocks(): ContextBlock[] {
    return this.parts?.blocks.list() ?? [];
  }

  /** Loads the blocks from their providers (once), so the sync getters see them. */
  async loadContext(): Promise<ContextBlock[]> {
    const { blocks } = await this.ready();
    await blocks.load();
    return blocks.list();
  }

  /** Replaces a writable block's content (SPEC §7.3). The frozen prompt does not change. */
  async replaceContextBlock(
    label: string,
    content: string,
  ): Promise<ContextBlock> {
    const { blocks } = await this.ready();
    return blocks.replace(label, assertContent(content), API_WRITE);
  }

  /** Appends to a writable block, re-reading its provider first so no concurrent write is lost. */
  async appendContextBlock(
    label: string,
    content: string,
  ): Promise<ContextBlock> {
    const { blocks } = await this.ready();
    return blocks.append(label, assertContent(content), API_WRITE);
  }

  /** Every recorded write of a writable block, oldest first (SPEC §7.7). */
  async getContextBlockHistory(label: string): Promise<BlockVersion[]> {
    const { blocks } = await this.ready();
    return blocks.versions(label);
  }

  /** Restores a block to a recorded version, with the replace rules; recorded as a revert. */
  async revertContextBlock(
    label: string,
    version: number,
  ): Promise<ContextBlock> {
    const { blocks } = await this.ready();
    return blocks.revert(label, version);
  }

  /** Adds a block at runtime; it reaches the prompt after `refreshSystemPrompt()`. */
  async addContext(
    label: string,
    options: SessionContextOptions = {},
  ): Promise<ContextBlock> {
    const parts = await this.ready();
    await parts.blocks.load();
    assertNewLabel(
      parts.blocks.list().map((block) => block.label),
      label,
    );
    const provider =
      options.provider ??
      providerForRuntimeBlock(this.plan, parts.provider, label);
    const block = await parts.blocks.add({ label, ...options, provider });
    if (isSkillProvider(provider))
      await parts.skills.restore(parts.provider).catch(warnRestore);
    return block;
  }

  /** Removes a block and forgets its loaded skills (history is not rewritten); `false` if absent. */
  removeContext(label: string): boolean {
    if (!this.parts) {
      const index = this.plan.context.findIndex(
        (config) => config.label === label,
      );
      if (index === -1) return false;
      this.plan.context.splice(index, 1);
      return true;
    }
    const removed = this.parts.blocks.remove(label);
    if (removed) this.parts.skills.forgetLabel(label);
    return removed;
  }

  // --- System prompt ---

  /**
   * The frozen system prompt: the stored one if `withCachedPrompt` persisted it, else rendered
   * once from the blocks and kept identical, so prefix caches stay warm (SPEC §7.6).
   */
  async freezeSystemPrompt(): Promise<string> {
    const { prompt } = await this.ready();
    return prompt.freeze();
  }

  /** Reloads every block, re-renders, persists and returns the new prompt. Call between turns. */
  async refreshSystemPrompt(): Promise<string> {
    const { prompt } = await this.ready();
    return prompt.refresh();
  }

  // --- Tools and skills ---

  /**
   * The AI SDK tools for the loaded blocks: `set_context`, `load_context`, `unload_context`,
   * `search_context`, each only when a block of its kind exists. Their `execute` never throws.
   */
  async tools(): Promise<ArborToolSet> {
    const parts = await this.ready();
    await parts.blocks.load();
    return buildContextTools(
      {
        blocks: parts.blocks,
        skills: parts.skills,
        unloadSkill: (label, key) => this.unloadSkill(label, key),
      },
      parts.blocks.loadedBlocks(),
    );
  }

  /** The loaded skills as `"<label>:<key>"` (a copy). */
  async getLoadedSkillKeys(): Promise<Set<string>> {
    const { skills } = await this.ready();
    return skills.keys();
  }

  /**
   * Unloads a skill: stops tracking it and rewrites its tool results on the active path to
   * `[skill unloaded: <key>]`, so the body is not replayed every turn. `false` if not loaded.
   */
  async unloadSkill(label: string, key: string): Promise<boolean> {
    const { skills, provider } = await this.ready();
    if (!skills.isLoaded(label, key)) return false;
    skills.delete(label, key);
    const originals = await reclaimSkill(provider, label, key, (message) =>
      this.updateMessage(message),
    );
    this.record("skill-unload", { label, key, originals });
    return true;
  }

  // --- Branches and audit ---

  /**
   * Makes the branch ending at `leafId` the active one until the next append, which then
   * continues it (SPEC §4.8): history reads, compaction and auto-parenting follow it. The choice
   * is stored with the session when the provider keeps config.
   */
  async switchBranch(leafId: string): Promise<void> {
    const { provider, pointer } = await this.ready();
    if (
      typeof leafId !== "string" ||
      (await provider.getMessage(leafId)) === null
    ) {
      throw new ArborError(
        "MESSAGE_NOT_FOUND",
        `Message "${String(leafId)}" not found in session "${this.plan.sessionId}"`,
      );
    }
    await pointer.set(leafId);
    this.compaction.estimator.invalidate();
  }

  /** Records what a turn sent to the model, when `withAudit(sink, { includeContext: true })` is set. */
  recordContext(context: RecordedContext): void {
    if (this.audit?.options.includeContext) this.record("context", context);
  }

  /** Resolves when every audit event so far has reached the sink (for shutdown and tests). */
  async flushAudit(): Promise<void> {
    await this.audit?.flush();
  }

  // --- Snapshots ---

  /**
   * The whole session as data (SPEC §15.3): every branch in insertion order, overlays, the
   * contents of the session's own blocks and the persisted prompt. Store it server-side.
   */
  async exportSnapshot(): Promise<SessionSnapshot> {
    const { provider, blocks, prompt, ownedLabels } = await this.ready();
    if (!provider.exportMessages) {
      throw new ArborError(
        "NOT_SUPPORTED",
        "[arbor] This session provider cannot export its messages (no exportMessages())",
      );
    }
    const records = await provider.exportMessages();
    await blocks.load();
    const contextBlocks: Record<string, string> = {};
    for (const block of blocks.list()) {
      if (ownedLabels.has(block.label) && block.writable)
        contextBlocks[block.label] = block.content;
    }
    return {
      format: "arbor.session",
      version: 1,
      sessionId: this.plan.sessionId,
      exportedAt: new Date().toISOString(),
      messages: records.map(({ message, parentId, createdAt }) => ({
        message,
        parentId,
        createdAt,
      })),
      compactions: await provider.getCompactions(),
      contextBlocks,
      systemPrompt: await prompt.stored(),
    };
  }

  /**
   * Restores a snapshot into this session, whatever its id: messages with their ids, parents and
   * order (so the same latest leaf), overlays, block contents and the frozen prompt. With
   * `replace` (default) existing messages and overlays are replaced in one atomic write; without
   * it an id collision throws `MESSAGE_EXISTS` and nothing is written.
   */
  async importSnapshot(
    snapshot: SessionSnapshot,
    options: { replace?: boolean } = {},
  ): Promise<void> {
    assertSnapshot(snapshot);
    const parts = await this.ready();
    const { provider, blocks, prompt, skills, ownedLabels } = parts;
    if (!provider.importRecords) {
      throw new ArborError(
        "NOT_SUPPORTED",
        "[arbor] This session provider cannot import records (no importRecords())",
      );
    }
    const importRecords = provider.importRecords.bind(provider);
    await this.exclusive(provider, async () =>
      importRecords({
        messages: snapshot.messages,
        compactions: snapshot.compactions,
        replace: options.replace ?? true,
      }),
    );
    this.compaction.estimator.invalidate();
    await blocks.load();
    for (const [label, content] of Object.entries(
      snapshot.contextBlocks ?? {},
    )) {
      if (
        ownedLabels.has(label) &&
        blocks.get(label)?.writable &&
        typeof content === "string"
      ) {
        await blocks.replace(label, content, { source: "import" });
      }
    }
    if (typeof snapshot.systemPrompt === "string")
      await prompt.restore(snapshot.systemPrompt);
    await skills.restore(provider).catch(warnRestore);
  }

  // --- Internal helpers ---

  /** Initializes once (SPEC §3.3) and waits for the skill restore scan. */
  private async ready(): Promise<SessionParts> {
    const parts = this.parts ?? this.initialize();
    if (this.restoring) await this.restoring;
    return parts;
  }

  private initialize(): SessionParts {
    const parts = setUpSession(this.plan);
    this.parts = parts;
    if (this.audit)
      parts.prompt.onRendered = (prompt, reason) =>
        this.record("prompt", { prompt, reason });
    if (hasSkillBlocks(this.plan.context)) {
      this.restoring = parts.skills
        .restore(parts.provider)
        .catch(warnRestore)
        .finally(() => {
          this.restoring = null;
        });
    }
    return parts;
  }

  private assertBuilder(): void {
    if (this.parts !== null) {
      throw new ArborError(
        "SESSION_ALREADY_INITIALIZED",
        "Session is already initialized; use addContext() for runtime blocks",
      );
    }
  }

  private exclusive<T>(
    provider: SessionProvider,
    task: () => Promise<T>,
  ): Promise<T> {
    return runExclusive(
      provider.storeIdentity ?? provider,
      this.plan.sessionId,
      task,
    );
  }

  /**
   * Emits `idle` (SPEC §13). The estimate is computed only when a broadcaster hears it or
   * auto-compaction needs it; it is returned so the automatic check does not compute it twice.
   */
  private async emitIdle(): Promise<number | undefined> {
    const needed = this.status.hasBroadcaster || this.compaction.isAutomatic;
    if (!needed && !this.status.isObserved) return undefined;
    let tokenEstimate = 0;
    let computed: number | undefined;
    if (needed) {
      try {
        computed = await this.compaction.estimate(
          this.host(await this.ready()),
        );
        tokenEstimate = computed;
      } catch (error) {
        console.warn(
          `[arbor] Status token estimate failed: ${messageOf(error)}`,
        );
      }
    }
    this.status.emit({
      type: "cf_agent_session",
      phase: "idle",
      tokenEstimate,
      tokenThreshold: this.compaction.threshold,
    });
    return computed;
  }

  private host(parts: SessionParts): CompactionHost {
    return {
      provider: parts.provider,
      prompt: parts.prompt,
      blocks: parts.blocks,
      status: this.status,
      onOverlay: (overlay) =>
        this.record("compaction", { compaction: overlay }),
    };
  }

  private record(type: AuditEvent["type"], payload: unknown): void {
    this.audit?.record(this.plan.sessionId, type, payload);
  }

  /** Write-time skill reclaim, then the row-size limit (SPEC §9.3, §6.9). */
  private prepareForStorage(
    message: SessionMessage,
    json: string,
  ): SessionMessage {
    const reclaimed = reclaimWithinMessage(message);
    if (this.maxRowBytes === false) return reclaimed;
    // Most messages fit: the validated JSON text answers that without serializing again.
    if (reclaimed === message && utf8Length(json) <= this.maxRowBytes)
      return message;
    return enforceRowSizeLimit(reclaimed, { maxBytes: this.maxRowBytes });
  }
}

const API_WRITE: WriteSource = { source: "api" };

function assertContent(content: unknown): string {
  if (typeof content !== "string") {
    throw new ArborTypeError(
      "INVALID_ARGUMENT",
      "[arbor] Block content must be a string",
    );
  }
  return content;
}

function warnRestore(error: unknown): void {
  console.warn(
    `[arbor] Restoring loaded skills failed; tracking starts empty: ${messageOf(error)}`,
  );
}

function invalidTarget(): TypeError {
  return new ArborTypeError(
    "INVALID_TARGET",
    "Session.create() requires a SqlProvider or SessionProvider",
  );
}

/** Lets a SessionManager hear every write of a session it manages (not public API). */
export function setAfterWrite(session: Session, hook: () => unknown): void {
  (session as unknown as { afterWrite: () => unknown }).afterWrite = hook;
}
