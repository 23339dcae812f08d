import { hasCapability } from "../contracts/provider-capabilities.js";
import { AuditRecorder } from "../audit/audit-recorder.js";
import type {
  CompactionErrorHandler,
  CompactAfterOptions,
} from "../contracts/types.js";
import type { CompactionFunction } from "../compaction/session-compaction.js";
import type { WriteSource } from "../context/context-blocks.js";
import { reclaimSkill } from "../context/skills.js";
import {
  buildContextTools,
  type ArborToolSet,
} from "../context/tools/index.js";
import type {
  ContextBlock,
  SessionContextOptions,
  SystemPromptReading,
} from "../context/types.js";
import type { AuditOptions, AuditSink } from "../contracts/audit.js";
import type { BlockVersion } from "../contracts/block-history.js";
import {
  isSkillProvider,
  type WritableContextProvider,
} from "../contracts/context-provider.js";
import type {
  SeedSessionProvider,
  SessionProvider,
} from "../contracts/provider.js";
import { ROW_MAX_BYTES } from "../messages/row-size-limit.js";
import {
  assertAuditSink,
  assertBuilder,
  assertCompactionFunction,
  assertContent,
  assertContextConfig,
  assertContextConfigs,
  assertSessionId,
  assertThreshold,
} from "./session-checks.js";
import { SessionRuntime, warnRestore } from "./session-runtime.js";
import { providerForRuntimeBlock } from "./session-setup.js";
import { checksRegistry, SessionWrites } from "./session-writes.js";
import { assertRowSizeLimit } from "./session-row-size.js";
import type { SessionEventListener } from "./status.js";
import {
  attachEmbeddings,
  flushSessionEmbeddings,
} from "../embeddings/session-embeddings.js";
import type { Embedder, EmbeddingOptions } from "../embeddings/types.js";

import type { CompactCallOptions, CompactResult } from "../contracts/types.js";
import type { RecordedContext } from "../contracts/audit.js";
import type { SessionSnapshot } from "../contracts/session-info.js";
import type { SqlProvider } from "../contracts/sql-provider.js";
import type {
  CompactionMeta,
  HistoryRowStat,
  RecentHistoryResult,
  SessionMessage,
  StoredCompaction,
} from "../contracts/types.js";
import type { SearchHit } from "../embeddings/types.js";
import { ArborError } from "../errors/index.js";
import type { SearchOptions, SessionOptions } from "./session-options.js";
import { assertCompactionArguments } from "../tree/compaction-args.js";
import { sessionProviderOf, sessionSeed } from "./seed-targets.js";
import { countMessages, recentHistory } from "./session-reads.js";
import {
  streamHistory,
  streamHistoryBatches,
  type HistoryStreamOptions,
} from "./session-history.js";
import type { ImportMessageOptions, UpsertOutcome } from "./session-import.js";
import { watchSession } from "./session-watch.js";
import type { AppendMessageResult } from "./session-writes.js";
import type {
  ChangeListener,
  ChangePosition,
  Unsubscribe,
} from "../contracts/changes.js";
import type { SessionSeam } from "./session-seam.js";

export type { SessionOptions, SearchOptions } from "./session-options.js";
export type { AppendMessageResult } from "./session-writes.js";

/** Set by Session's static block, the one place with access to a Session's state (`sessionSeam`). */
let openSeam: (session: Session) => SessionSeam;

/**
 * A conversation stored as a tree of messages, read back as a linear history for any leaf, with
 * compaction overlays applied at read time, context blocks rendered into a cacheable system
 * prompt, AI tools for the model to manage its memory, and full-text search (docs/behavior/session-setup.md, docs/behavior/context-blocks.md).
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
  private readonly recent = { warned: false };

  protected readonly runtime: SessionRuntime;
  protected readonly writes: SessionWrites;

  #seam: SessionSeam | undefined;

  static {
    // The one way into a Session's state from outside its own modules (session-seam.ts).
    openSeam = (session) =>
      (session.#seam ??= createSeam(session.runtime, session.writes));
  }

  /** Uses exactly the given provider and options: no auto-wiring (docs/behavior/session-setup.md). */
  constructor(
    target: SessionProvider | SeedSessionProvider,
    options: SessionOptions = {},
  ) {
    // A seed-shaped provider (appendMessage, no writeMessages) is written through the one
    // primitive: seed-targets.ts checks the target and adapts it.
    const provider = sessionProviderOf(target);
    const context = options.context ?? [];
    assertContextConfigs(context);
    this.runtime = new SessionRuntime({
      provider,
      sessionId: options.sessionId ?? provider.sessionId ?? "",
      context: [...context],
      promptStore: options.promptStore,
      direct: true,
    });
    this.runtime.compaction.tokenCounter = options.tokenCounter;
    this.runtime.compaction.errorHandler = options.onCompactionError;
    this.writes = new SessionWrites(
      this.runtime,
      options.maxRowBytes ?? ROW_MAX_BYTES,
    );
  }

  // --- Builder: records only; throws after initialization ---

  /**
   * The row-size limit on append and update (docs/behavior/storage.md): a message whose JSON is
   * over `limit` UTF-8 bytes is shortened before it is stored (default 1,800,000, under Durable
   * Object SQLite's 2 MB rows). `false` stores every message whole, whatever its size.
   */
  withRowSizeLimit(limit: number | false): this {
    assertBuilder(this.runtime.parts !== null);
    this.writes.maxRowBytes = assertRowSizeLimit(limit);
    return this;
  }

  /**
   * Semantic recall (docs/search.md): new and updated messages are queued in the same write and
   * embedded in the background, in batches; `search()` then defaults to `"hybrid"`. `embedder`
   * is an AI SDK `EmbeddingModel` or `(texts) => Promise<number[][]>`. May be called at any time.
   */
  withEmbeddings(embedder: Embedder, options: EmbeddingOptions = {}): this {
    attachEmbeddings(this.runtime, embedder, options);
    return this;
  }

  /** Waits until every queued message is embedded (tests, scripts); rejects after repeated embedder failures. */
  async flushEmbeddings(): Promise<void> {
    await flushSessionEmbeddings(this.runtime);
  }

  /** Namespaces this session: rows carry `sessionId`, so many sessions can share one store. */
  forSession(sessionId: string): this {
    assertBuilder(this.runtime.parts !== null);
    this.runtime.plan.sessionId = assertSessionId(sessionId);
    return this;
  }

  /**
   * Adds a context block. Without a provider it is auto-wired: a row in the `sql` store, or the
   * provider's `createContextProvider()` hook.
   */
  withContext(label: string, options: SessionContextOptions = {}): this {
    assertBuilder(this.runtime.parts !== null);
    const { context } = this.runtime.plan;
    assertContextConfig(
      context.map((config) => config.label),
      label,
      options,
    );
    context.push({ label, ...options });
    return this;
  }

  /** Persists the frozen system prompt, so a restarted session serves the same prompt. */
  withCachedPrompt(provider?: WritableContextProvider): this {
    assertBuilder(this.runtime.parts !== null);
    this.runtime.plan.promptStore = provider ?? null;
    return this;
  }

  /**
   * Records every write, overlay, prompt and skill unload to `sink` (docs/behavior/events-and-audit.md), in order, without
   * ever blocking or failing the session's own operations. With `includeContext`,
   * `recordContext()` records what was sent to the model.
   */
  withAudit(sink: AuditSink, options: AuditOptions = {}): this {
    assertBuilder(this.runtime.parts !== null);
    assertAuditSink(sink);
    this.runtime.audit = new AuditRecorder(sink, options);
    return this;
  }

  /**
   * Registers the compaction function (for example `createCompactFunction({ summarize })`).
   * May be called at any time.
   */
  onCompaction(compactFunction: CompactionFunction): this {
    assertCompactionFunction(compactFunction);
    this.runtime.compaction.compactFunction = compactFunction;
    return this;
  }

  /**
   * Compacts automatically when, after an insert, the token estimate is above `threshold`.
   * `options.tokenCounter` replaces the heuristic for the decision and for the compaction function.
   */
  compactAfter(threshold: number, options: CompactAfterOptions = {}): this {
    assertThreshold(threshold);
    this.runtime.compaction.configureAfter(threshold, options);
    return this;
  }

  /** Receives auto-compaction failures; a throwing handler is logged and swallowed. */
  onCompactionError(handler: CompactionErrorHandler): this {
    this.runtime.compaction.errorHandler = handler;
    return this;
  }

  /** Receives status and error events (docs/behavior/events-and-audit.md), for any backend. Returns an unsubscribe function. */
  onStatus(listener: SessionEventListener): () => void {
    return this.runtime.status.subscribe(listener);
  }

  // --- Context blocks ---

  /** A copy of a loaded block, or `null` before blocks load (see `loadContext()`). */
  getContextBlock(label: string): ContextBlock | null {
    return this.runtime.parts?.blocks.get(label) ?? null;
  }

  /** Copies of the loaded blocks, `[]` before blocks load (see `loadContext()`). */
  getContextBlocks(): ContextBlock[] {
    return this.runtime.parts?.blocks.list() ?? [];
  }

  /**
   * Loads the blocks from their providers (once), so the sync getters see them. With
   * `{ reload: true }` every provider is read again, so writes by another process (or another
   * session sharing the provider) show; the frozen prompt does not change.
   */
  async loadContext(
    options: { reload?: boolean } = {},
  ): Promise<ContextBlock[]> {
    const { blocks } = await this.runtime.ready();
    await blocks.load(options.reload === true);
    return blocks.list();
  }

  /** Replaces a writable block's content (docs/behavior/context-blocks.md). The frozen prompt does not change. */
  async replaceContextBlock(
    label: string,
    content: string,
  ): Promise<ContextBlock> {
    const { blocks } = await this.runtime.ready();
    return blocks.replace(label, assertContent(content), API_WRITE);
  }

  /** Appends to a writable block, re-reading its provider first so no concurrent write is lost. */
  async appendContextBlock(
    label: string,
    content: string,
  ): Promise<ContextBlock> {
    const { blocks } = await this.runtime.ready();
    return blocks.append(label, assertContent(content), API_WRITE);
  }

  /** Every recorded write of a writable block, oldest first (docs/behavior/context-blocks.md). */
  async getContextBlockHistory(label: string): Promise<BlockVersion[]> {
    const { blocks } = await this.runtime.ready();
    return blocks.versions(label);
  }

  /** Restores a block to a recorded version, with the replace rules; recorded as a revert. */
  async revertContextBlock(
    label: string,
    version: number,
  ): Promise<ContextBlock> {
    const { blocks } = await this.runtime.ready();
    return blocks.revert(label, version);
  }

  /** Adds a block at runtime; it reaches the prompt after `refreshSystemPrompt()`. */
  async addContext(
    label: string,
    options: SessionContextOptions = {},
  ): Promise<ContextBlock> {
    const parts = await this.runtime.ready();
    await parts.blocks.load();
    assertContextConfig(
      parts.blocks.list().map((block) => block.label),
      label,
      options,
    );
    const provider =
      options.provider ??
      providerForRuntimeBlock(this.runtime.plan, parts.provider, label);
    const block = await parts.blocks.add({ label, ...options, provider });
    if (isSkillProvider(provider))
      await parts.skills.restore(parts.tree).catch(warnRestore);
    return block;
  }

  /** Removes a block and forgets its loaded skills (history is not rewritten); `false` if absent. */
  removeContext(label: string): boolean {
    const { parts, plan } = this.runtime;
    if (!parts) {
      const index = plan.context.findIndex((config) => config.label === label);
      if (index === -1) return false;
      plan.context.splice(index, 1);
      return true;
    }
    const removed = parts.blocks.remove(label);
    if (removed) parts.skills.forgetLabel(label);
    return removed;
  }

  // --- System prompt ---

  /**
   * The frozen system prompt: the stored one if `withCachedPrompt` persisted it, else rendered
   * once from the blocks and kept identical, so prefix caches stay warm (docs/behavior/context-blocks.md).
   */
  async freezeSystemPrompt(): Promise<string> {
    const { prompt } = await this.runtime.ready();
    return prompt.freeze();
  }

  /**
   * Reads the system prompt without freezing or persisting anything: `frozen` is the prompt the
   * next turn sends (`null` until something froze one) and `current` is what the blocks render
   * now, re-read from their providers (what `refreshSystemPrompt()` would freeze). A viewer such
   * as the studio's Prompt tab uses this, so looking never decides what the agent is told.
   */
  async readSystemPrompt(): Promise<SystemPromptReading> {
    const { prompt } = await this.runtime.ready();
    return prompt.read();
  }

  /** Reloads every block, re-renders, persists and returns the new prompt. Call between turns. */
  async refreshSystemPrompt(): Promise<string> {
    const { prompt } = await this.runtime.ready();
    return prompt.refresh();
  }

  // --- Tools and skills ---

  /**
   * The AI SDK tools for the loaded blocks: `set_context`, `load_context`, `unload_context`,
   * `search_context`, each only when a block of its kind exists. Their `execute` never throws.
   */
  async tools(): Promise<ArborToolSet> {
    const parts = await this.runtime.ready();
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
    const { skills } = await this.runtime.ready();
    return skills.keys();
  }

  /**
   * Unloads a skill: stops tracking it and rewrites its tool results on the active path to
   * `[skill unloaded: <key>]`, so the body is not replayed every turn. `false` if not loaded.
   */
  async unloadSkill(label: string, key: string): Promise<boolean> {
    const { skills, tree } = await this.runtime.ready();
    if (!skills.isLoaded(label, key)) return false;
    skills.delete(label, key);
    const originals = await reclaimSkill(tree, label, key, (message) =>
      this.writes.update(message),
    );
    this.runtime.record("skill-unload", { label, key, originals });
    return true;
  }

  /**
   * A session over a `sql` store (Durable Object, `openSqlite()`) or any `SessionProvider` (one
   * of a backend's: `Session.create(postgresBackend(pool).session(id))`), with auto-wired context
   * blocks. Performs no I/O. Anything else, a PostgreSQL pool included, throws `INVALID_TARGET`
   * here, naming the accepted forms, rather than at the first write.
   */
  static create(
    target: SqlProvider | SessionProvider | SeedSessionProvider,
  ): Session {
    // What the target is, is asked in seed-targets.ts only.
    const { provider, broadcast } = sessionSeed(target);
    const session = new Session(provider);
    session.runtime.plan.direct = false;
    // Only a sql store's own `broadcast` (a Durable Object Agent's) hears status events; a
    // SessionProvider never broadcasts (docs/behavior/session-setup.md).
    if (broadcast) session.runtime.status.broadcastTo(broadcast);
    return session;
  }

  // --- Messages ---

  /**
   * Inserts a message. `parentId`: omitted = after the latest leaf, `null` = a new root, a string
   * = under that message (a root, with a warning, if it is not in this session; so is anything
   * else). Appending an id that exists is a no-op: the first write wins.
   *
   * Resolves to what the insert itself did: `{ inserted: true, message }` with the message as
   * stored, or, when the id is taken, `{ inserted: false, message }` with the message that holds
   * it (left as it was), and `matchesStored` telling a retry of the same write from a different
   * one. Of concurrent appends of one id exactly one is `inserted`. A caller that ignores the
   * result pays nothing for it: the stored message is read only when the id was taken.
   */
  async appendMessage(
    message: SessionMessage,
    parentId?: string | null,
  ): Promise<AppendMessageResult> {
    return this.writes.appendWithResult(message, parentId);
  }

  /**
   * `appendMessage()`, which now resolves to the same result.
   *
   * @deprecated Use `appendMessage()`: it returns `{ inserted, message, matchesStored }`.
   */
  async appendMessageWithResult(
    message: SessionMessage,
    parentId?: string | null,
  ): Promise<AppendMessageResult> {
    return this.writes.appendWithResult(message, parentId);
  }

  /**
   * Appends many messages as one chain: each under the message before it, the first under
   * `parentId` (as in `appendMessage`). All are checked before any write; built-in providers write
   * them in one transaction (all or none). A taken id (in the session, or earlier in the batch) is
   * skipped, and the next message still goes under that id. Returns how many were inserted.
   *
   * @example
   * ```ts
   * await session.appendAll([
   *   { id: "u1", role: "user", parts: [{ type: "text", text: "Hi" }] },
   *   { id: "a1", role: "assistant", parts: [{ type: "text", text: "Hello!" }] },
   * ]); // 2
   * ```
   */
  async appendAll(
    messages: readonly SessionMessage[],
    parentId?: string | null,
  ): Promise<number> {
    return this.writes.appendAll(messages, parentId);
  }

  /**
   * Writes a message as it was written elsewhere (docs/behavior/messages-and-tree.md): under the
   * explicit `parentId` (`null` = a root), with `createdAt` as its stored time. Returns `false`
   * and writes nothing when the id is already in the session. Never auto-compacts.
   */
  async importMessage(
    message: SessionMessage,
    options: ImportMessageOptions,
  ): Promise<boolean> {
    const { importMessage } = await imports();
    return importMessage(
      this.runtime,
      this.writes.maxRowBytes,
      message,
      options,
    );
  }

  /**
   * Appends the message when its id is absent (`"inserted"`, `parentId` as in `appendMessage`),
   * otherwise replaces its stored content (`"updated"`, parent unchanged).
   */
  async upsertMessage(
    message: SessionMessage,
    parentId?: string | null,
  ): Promise<UpsertOutcome> {
    const { upsertMessage } = await imports();
    return upsertMessage(this.writes, this.runtime, message, parentId);
  }

  /** Replaces the stored content of the message with the same id. Unknown ids are a no-op. */
  async updateMessage(message: SessionMessage): Promise<void> {
    await this.writes.update(message);
  }

  /** Deletes messages; children move up to the nearest surviving ancestor (docs/behavior/messages-and-tree.md). */
  async deleteMessages(ids: readonly string[]): Promise<void> {
    await this.writes.delete(ids);
  }

  /**
   * Deletes every message, overlay and index row of this session, forgets loaded skills and
   * re-renders the system prompt. Other sessions and block contents are untouched.
   */
  async clearMessages(): Promise<void> {
    await this.writes.clear();
  }

  /** The stored message, without overlays, or `null`. */
  async getMessage(id: string): Promise<SessionMessage | null> {
    const { provider } = await this.runtime.ready();
    if (typeof id !== "string" || id === "") return null;
    return (await provider.getMessage(id)) ?? null;
  }

  /** The path root → `leafId` (latest leaf by default) with compaction overlays applied. */
  async getHistory(leafId?: string | null): Promise<SessionMessage[]> {
    const { tree } = await this.runtime.ready();
    if (leafId !== undefined && leafId !== null && typeof leafId !== "string")
      return [];
    return tree.history(leafId);
  }

  /**
   * The messages of `getHistory()`, streamed window by window in bounded memory (docs/behavior/history.md).
   * Options are checked at the call (`INVALID_ARGUMENT`); nothing is read until iteration.
   */
  history(options?: HistoryStreamOptions): AsyncIterable<SessionMessage> {
    return streamHistory(() => this.runtime.ready(), options);
  }

  /** `history()` in batches, each within `batchSize` messages and `maxBatchBytes` bytes. */
  historyBatches(
    options?: HistoryStreamOptions,
  ): AsyncIterable<SessionMessage[]> {
    return streamHistoryBatches(() => this.runtime.ready(), options);
  }

  /** The most recently inserted leaf, raw, or `null`. */
  async getLatestLeaf(): Promise<SessionMessage | null> {
    const { tree } = await this.runtime.ready();
    return tree.latestLeaf();
  }

  /** Children of a message, oldest first: the answers a regenerate produced, for example. */
  async getBranches(messageId: string): Promise<SessionMessage[]> {
    const { tree } = await this.runtime.ready();
    if (typeof messageId !== "string") return [];
    return tree.branches(messageId);
  }

  /** How many messages the session stores in every branch (a COUNT on the built-in providers). */
  async countMessages(): Promise<number> {
    const { provider } = await this.runtime.ready();
    return countMessages(provider);
  }

  /** Number of stored rows on the path (overlays do not reduce it). */
  async getPathLength(leafId?: string | null): Promise<number> {
    const { tree } = await this.runtime.ready();
    if (leafId !== undefined && leafId !== null && typeof leafId !== "string")
      return 0;
    return tree.pathLength(leafId);
  }

  /** A suffix of the active path (or of `leafId`'s) that fits `maxContentBytes` (docs/behavior/history.md). */
  async getRecentHistory(
    maxContentBytes: number,
    minRecentMessages = 1,
    leafId?: string | null,
  ): Promise<RecentHistoryResult> {
    const { tree } = await this.runtime.ready();
    return recentHistory(
      tree,
      maxContentBytes,
      minRecentMessages,
      this.recent,
      leafId,
    );
  }

  /** `{ id, role, bytes }` for each row of the active path, or `null` if the provider cannot tell. */
  async getHistoryRowStats(): Promise<HistoryRowStat[] | null> {
    const { tree } = await this.runtime.ready();
    return tree.historyRowStats();
  }

  // --- Compaction overlays ---

  /** Stores an overlay that replaces `fromMessageId..toMessageId` with `summary` at read time. */
  async addCompaction(
    summary: string,
    fromMessageId: string,
    toMessageId: string,
    meta?: CompactionMeta,
  ): Promise<StoredCompaction> {
    assertCompactionArguments(summary, fromMessageId, toMessageId);
    const { provider } = await this.runtime.ready();
    const stored = await provider.addCompaction(
      summary,
      fromMessageId,
      toMessageId,
      meta,
    );
    this.runtime.compaction.estimator.invalidate();
    this.runtime.record("compaction", { compaction: stored });
    return stored;
  }

  /** Every overlay of this session, superseded ones included, oldest first. */
  async getCompactions(): Promise<StoredCompaction[]> {
    const { provider } = await this.runtime.ready();
    return provider.getCompactions();
  }

  /** Deletes one overlay; the messages (or the older summary) it covered reappear. */
  async removeCompaction(id: string): Promise<boolean> {
    const { provider } = await this.runtime.ready();
    if (!hasCapability(provider, "deleteCompaction")) {
      throw new ArborError(
        "NOT_SUPPORTED",
        "Session provider does not support removing compactions",
      );
    }
    const removed = await provider.deleteCompaction(id);
    this.runtime.compaction.estimator.invalidate();
    return removed;
  }

  /**
   * Summarizes older messages of the active branch (or of `leafId`'s branch) with the function
   * given to `onCompaction()`, stores the overlay and refreshes the system prompt. Returns the
   * stored range, or `null` when there was nothing to compact. Errors are rethrown. With
   * `requestKey`, a repeat is safe: when an overlay stored under that key exists, it is returned
   * and nothing runs (docs/behavior/overlays.md, "Repeating a compaction").
   */
  async compact(
    leafId?: string | null,
    options?: CompactCallOptions,
  ): Promise<CompactResult | null> {
    const parts = await this.runtime.ready();
    return this.runtime.compaction.compact(
      this.runtime.host(parts),
      leafId,
      options,
    );
  }

  // --- Search ---

  /** Searches this session: text, semantic or hybrid, over the tree or one branch (docs/search.md). */
  async search(
    query: string,
    options: SearchOptions = {},
  ): Promise<SearchHit[]> {
    // The search pipeline loads on first search: a Worker's first chunk carries none of it.
    const { searchSessionHits } = await import("./session-search.js");
    return searchSessionHits(this.runtime, query, options);
  }

  // --- Branches and audit ---

  /**
   * Makes the branch ending at `leafId` the active one until the next append, which then
   * continues it (docs/behavior/messages-and-tree.md): history reads, compaction and auto-parenting follow it. The choice
   * is stored with the session when the provider keeps config.
   */
  async switchBranch(leafId: string): Promise<void> {
    const { provider, tree } = await this.runtime.ready();
    if (
      typeof leafId !== "string" ||
      (await provider.getMessage(leafId)) === null
    ) {
      throw new ArborError(
        "MESSAGE_NOT_FOUND",
        `Message "${String(leafId)}" not found in session "${this.runtime.plan.sessionId}"`,
      );
    }
    await tree.pointer.set(leafId);
    this.runtime.compaction.estimator.invalidate();
  }

  /** Records what a turn sent to the model, when `withAudit(sink, { includeContext: true })` is set. */
  recordContext(context: RecordedContext): void {
    if (this.runtime.audit?.options.includeContext)
      this.runtime.record("context", context);
  }

  /** Resolves when every audit event so far has reached the sink (for shutdown and tests). */
  async flushAudit(): Promise<void> {
    await this.runtime.audit?.flush();
  }

  // --- Change feed ---

  /**
   * Calls `listener` once per committed write to this session, in commit order, including
   * writes by other processes to the same SQLite file or PostgreSQL database (within about a
   * second); returns the function that stops it (docs/behavior/events-and-audit.md, "Change feed").
   * With `after` (an earlier event's `cursor` or `seq`) it first delivers every change committed
   * after that event, even by another process while this one was down; a position older than
   * the change log keeps gets one `reset` event instead (re-read the session). `onStart`
   * receives the position the watch starts after, to resume from before any event arrived.
   *
   * @example
   * ```ts
   * const stop = session.watch((event) => console.log(event.type, event.ids));
   * stop();
   * const resumed = session.watch(listener, { after: lastEvent.cursor });
   * ```
   */
  watch(
    listener: ChangeListener,
    options: {
      after?: ChangePosition;
      onStart?: (position: string) => void;
    } = {},
  ): Unsubscribe {
    return watchSession(this.runtime, listener, {
      after: options.after,
      onStart: options.onStart,
    });
  }

  // --- Snapshots ---

  /**
   * The whole session as data (docs/behavior/manager.md): every branch in insertion order, overlays, the
   * contents of the session's own blocks and the persisted prompt. Store it server-side.
   */
  async exportSnapshot(): Promise<SessionSnapshot> {
    const { exportSnapshot } = await snapshots();
    return exportSnapshot(this.runtime);
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
    const { importSnapshot } = await snapshots();
    await importSnapshot(this.runtime, snapshot, options);
  }
}

/** Snapshots are occasional: loaded on first use, so a Worker's entry chunk stays small. */
function snapshots() {
  return import("./session-snapshot.js");
}

/**
 * Writes of messages made elsewhere (imports, upserts from a mirror) are occasional too: a
 * Durable Object that only appends and reads never loads them.
 */
function imports() {
  return import("./session-import.js");
}

/**
 * The session's seam (session-seam.ts): what the SessionManager that opened it, and the layers
 * that serve a manager's sessions, may do with it beyond the public API. One object per Session.
 *
 * @internal Not public API: stripped from the published types.
 */
export function sessionSeam(session: Session): SessionSeam {
  return openSeam(session);
}

function createSeam(
  runtime: SessionRuntime,
  writes: SessionWrites,
): SessionSeam {
  return {
    ready: () => runtime.ready(),
    storedBlocks: (read) => {
      runtime.plan.stored = read;
    },
    onWrite: (hook) => {
      runtime.afterWrite = hook;
    },
    attachEmbeddings: (handle) => attachEmbeddings(runtime, handle),
    detachEmbeddings: (handle) => {
      if (runtime.embeddings?.handle === handle) runtime.embeddings = null;
    },
    insertChecksRegistry: async () =>
      checksRegistry((await runtime.ready()).provider),
    insertChecksParent: async () =>
      (await runtime.ready()).provider.insertChecksParent === true,
    appendChecked: (message, parentId, checks) =>
      writes.appendChecked(message, parentId, checks),
    watchStore: (listener, options = {}) =>
      watchSession(runtime, listener, { ...options, allSessions: true }),
    eraseExclusive: (task) => runtime.eraseExclusive(task),
    invalidateEstimate: () => runtime.compaction.estimator.invalidate(),
    activeHistoryWithin: async (within) =>
      (await runtime.ready()).tree.activeHistoryWithin(within),
  };
}

const API_WRITE: WriteSource = { source: "api" };
