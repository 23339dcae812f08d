import type { CompactionFunction } from "../compaction/session-compaction.js";
import type { AuditOptions, AuditSink } from "../contracts/audit.js";
import type { SearchProvider } from "../contracts/context-provider.js";
import type {
  CompactAfterOptions,
  CompactionErrorHandler,
} from "../contracts/types.js";
import { ArborError } from "../errors/index.js";
import type { EmbeddingHandle } from "../embeddings/embedding-handle.js";
import type { ManagedSession } from "./session-cache.js";
import {
  assertAuditSink,
  assertCompactionFunction,
  assertThreshold,
} from "../facade/session-checks.js";
import { PROMPT_KEY } from "../facade/session-setup.js";
import { assertRowSizeLimit } from "../facade/session-row-size.js";
import type {
  CachedPromptSetting,
  ManagerContextOptions,
} from "./manager-options.js";

interface Template {
  label: string;
  options: ManagerContextOptions;
}

/**
 * A manager's builder settings, applied to every session it opens. Setters check their argument
 * before recording it (with the messages Session's own builder uses): a bad value recorded here
 * would make every later session fail to open.
 */
export class SessionSettings {
  private readonly templates: Template[] = [];
  private cachedPrompt: CachedPromptSetting | undefined;
  private historyLabel: string | null = null;
  private compactFunction: CompactionFunction | undefined;
  private compactAfterSettings:
    { threshold: number; options?: CompactAfterOptions } | undefined;
  private compactionErrorHandler: CompactionErrorHandler | undefined;
  private auditSettings: { sink: AuditSink; options: AuditOptions } | undefined;
  private rowSizeLimit: number | false | undefined;
  /** Set by `withEmbeddings()`: one handle, shared by every session (manager/manager-recall.ts). */
  embeddings: EmbeddingHandle | null = null;

  addContext(label: string, options: ManagerContextOptions): void {
    if (this.templates.some((template) => template.label === label)) {
      throw new ArborError("BLOCK_EXISTS", `Block "${label}" already exists`);
    }
    this.templates.push({ label, options });
  }

  setCachedPrompt(setting: CachedPromptSetting): void {
    this.cachedPrompt = setting;
  }

  setHistoryLabel(label: string): void {
    this.historyLabel = label;
  }

  setCompactFunction(compactFunction: CompactionFunction): void {
    assertCompactionFunction(compactFunction);
    this.compactFunction = compactFunction;
  }

  setCompactAfter(threshold: number, options?: CompactAfterOptions): void {
    assertThreshold(threshold);
    this.compactAfterSettings = { threshold, ...(options ? { options } : {}) };
  }

  setCompactionErrorHandler(handler: CompactionErrorHandler): void {
    this.compactionErrorHandler = handler;
  }

  setRowSizeLimit(limit: number | false): void {
    this.rowSizeLimit = assertRowSizeLimit(limit);
  }

  setAudit(sink: AuditSink, options: AuditOptions): void {
    assertAuditSink(sink);
    this.auditSettings = { sink, options };
  }

  /** The sink of `withAudit()`, or `null`. */
  get auditSink(): AuditSink | null {
    return this.auditSettings?.sink ?? null;
  }

  /**
   * The context rows a session owns under these settings: auto-wired blocks and the per-session
   * prompt. Deleting the session deletes them.
   */
  ownedContextKeys(sessionId: string): string[] {
    const keys = this.templates
      .filter((template) => template.options.provider === undefined)
      .map((template) => `${template.label}_${sessionId}`);
    if (this.cachedPrompt === null) keys.push(`${PROMPT_KEY}_${sessionId}`);
    return keys;
  }

  /** Configures a Session in builder state; `history` serves the searchable-history block. */
  apply(
    { session, seam }: ManagedSession,
    sessionId: string,
    history: SearchProvider,
  ): void {
    for (const { label, options } of this.templates) {
      const { provider, ...rest } = options;
      const resolved =
        typeof provider === "function" ? provider(sessionId) : provider;
      session.withContext(label, {
        ...rest,
        ...(resolved ? { provider: resolved } : {}),
      });
    }
    if (this.historyLabel !== null) {
      session.withContext(this.historyLabel, {
        description: "Cross-session conversation history",
        provider: history,
      });
    }
    if (this.cachedPrompt !== undefined) {
      const prompt =
        typeof this.cachedPrompt === "function"
          ? this.cachedPrompt(sessionId)
          : this.cachedPrompt;
      session.withCachedPrompt(prompt ?? undefined);
    }
    if (this.compactFunction) session.onCompaction(this.compactFunction);
    if (this.compactAfterSettings) {
      session.compactAfter(
        this.compactAfterSettings.threshold,
        this.compactAfterSettings.options,
      );
    }
    if (this.compactionErrorHandler)
      session.onCompactionError(this.compactionErrorHandler);
    if (this.auditSettings)
      session.withAudit(this.auditSettings.sink, this.auditSettings.options);
    if (this.rowSizeLimit !== undefined)
      session.withRowSizeLimit(this.rowSizeLimit);
    if (this.embeddings) seam.attachEmbeddings(this.embeddings);
  }
}
