import { AuditRecorder } from "./audit/audit-recorder.js";
import type {
  CompactionErrorHandler,
  CompactAfterOptions,
  SessionTokenCounter,
} from "./contracts/types.js";
import type { CompactionFunction } from "./compaction/session-compaction.js";
import type { WriteSource } from "./context/context-blocks.js";
import { reclaimSkill } from "./context/skills.js";
import { buildContextTools, type ArborToolSet } from "./context/tools/index.js";
import type {
  ContextBlock,
  ContextConfig,
  SessionContextOptions,
} from "./context/types.js";
import type { AuditOptions, AuditSink } from "./contracts/audit.js";
import type { BlockVersion } from "./contracts/block-history.js";
import {
  isSkillProvider,
  type WritableContextProvider,
} from "./contracts/context-provider.js";
import type { SessionProvider } from "./contracts/provider.js";
import { ROW_MAX_BYTES } from "./core/row-size-limit.js";
import {
  assertAuditSink,
  assertBuilder,
  assertCompactionFunction,
  assertContent,
  assertContextConfig,
  assertContextConfigs,
  assertSessionId,
  assertSessionTarget,
  assertThreshold,
} from "./session-checks.js";
import { SessionRuntime, warnRestore } from "./session-runtime.js";
import { providerForRuntimeBlock } from "./session-setup.js";
import { SessionWrites } from "./session-writes.js";
import { assertRowSizeLimit } from "./session-row-size.js";
import type { SessionEventListener } from "./status.js";
import {
  attachEmbeddings,
  flushSessionEmbeddings,
} from "./embeddings/session-embeddings.js";
import type {
  Embedder,
  EmbeddingOptions,
  SessionSearchOptions,
} from "./embeddings/types.js";

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

/**
 * The configuration and context half of the `Session` API: the constructor, the builder, context
 * blocks, the system prompt, tools and skills. `Session` (session.ts) adds messages, history,
 * compaction, search, branches and snapshots. Not exported on its own.
 */
export class SessionBase {
  protected readonly runtime: SessionRuntime;
  protected readonly writes: SessionWrites;

  /**
   * The state a Session shares with its modules, and with the SessionManager that opened it
   * (embeddings, the registry hook, erase, prune, recall).
   *
   * @internal Not public API: stripped from the published types.
   */
  static runtimeOf(session: SessionBase): SessionRuntime {
    return session.runtime;
  }

  /** Uses exactly the given provider and options: no auto-wiring (docs/behavior/session-setup.md). */
  constructor(provider: SessionProvider, options: SessionOptions = {}) {
    assertSessionTarget(provider, "new Session()");
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
}

const API_WRITE: WriteSource = { source: "api" };
