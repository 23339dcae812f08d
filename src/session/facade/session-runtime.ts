import type { AuditRecorder } from "../audit/audit-recorder.js";
import {
  SessionCompaction,
  type CompactionHost,
} from "../compaction/session-compaction.js";
import type { AuditEvent } from "../contracts/audit.js";
import type { SessionProvider } from "../contracts/provider.js";
import { storeRuntime, type StoreRuntime } from "../state/store-runtime.js";
import {
  hasSkillBlocks,
  setUpSession,
  type SessionParts,
  type SessionPlan,
} from "./session-setup.js";
import { messageOf, StatusEmitter } from "./status.js";
import type { EmbeddingHandle } from "../embeddings/embedding-handle.js";

/** What a write tells the after-write hook: whether its own statement already touched the registry row. */
export interface WriteNotice {
  registryTouched?: boolean;
}

/** The after-write hook of a Session (set by a SessionManager). */
export type AfterWrite = (write?: WriteNotice) => unknown;

/**
 * The state one Session shares with its write, snapshot and read modules: the recorded plan,
 * the pieces resolved at first use, status, compaction and audit.
 */
export class SessionRuntime {
  readonly status: StatusEmitter;
  readonly compaction = new SessionCompaction();
  audit: AuditRecorder | null = null;
  /** Set by `withEmbeddings()` (embeddings/session-embeddings.ts): the handle, and its wake-up after writes. */
  embeddings: { handle: EmbeddingHandle; onWrite: () => void } | null = null;
  #afterWrite: AfterWrite | undefined;
  private resolved: SessionParts | null = null;
  private restoring: Promise<void> | null = null;

  constructor(readonly plan: SessionPlan) {
    this.status = new StatusEmitter();
  }

  /** Set by a SessionManager: bumps the registry's `updated_at` after each write. Also wakes the embedder. */
  get afterWrite(): AfterWrite | undefined {
    const hook = this.#afterWrite;
    const embeddings = this.embeddings;
    if (!embeddings) return hook;
    return (write) => {
      embeddings.onWrite();
      return hook?.(write);
    };
  }

  set afterWrite(hook: AfterWrite | undefined) {
    this.#afterWrite = hook;
  }

  /** The resolved pieces, or `null` before first use. */
  get parts(): SessionParts | null {
    return this.resolved;
  }

  /** Initializes once (docs/behavior/session-setup.md) and waits for the skill restore scan. */
  async ready(): Promise<SessionParts> {
    const parts = this.resolved ?? this.initialize();
    if (this.restoring) await this.restoring;
    return parts;
  }

  /** The resolved pieces, set up now if needed, without waiting for the skill restore scan. */
  setUp(): SessionParts {
    return this.resolved ?? this.initialize();
  }

  /** Runs `task` under the in-process append lock of this store and session id. */
  exclusive<T>(provider: SessionProvider, task: () => Promise<T>): Promise<T> {
    return storeState(provider).exclusive(this.plan.sessionId, task);
  }

  /**
   * Runs an erase step of this session (`SessionManager.erase()`) under its append lock; the step
   * calls `erasing()` before it writes, which bumps the session's erase epoch. So no append,
   * delete or compaction of this process interleaves, and no compaction that read the erased
   * messages stores its summary afterwards.
   */
  eraseExclusive<T>(task: (erasing: () => void) => Promise<T>): Promise<T> {
    const store = storeState(this.setUp().provider);
    const { sessionId } = this.plan;
    return store.exclusive(sessionId, () =>
      task(() => store.bumpEraseEpoch(sessionId)),
    );
  }

  record(type: AuditEvent["type"], payload: unknown): void {
    this.audit?.record(this.plan.sessionId, type, payload);
  }

  host(parts: SessionParts): CompactionHost {
    return {
      tree: parts.tree,
      prompt: parts.prompt,
      blocks: parts.blocks,
      status: this.status,
      onOverlay: (overlay) =>
        this.record("compaction", { compaction: overlay }),
      eraseEpoch: () =>
        storeState(parts.provider).eraseEpoch(this.plan.sessionId),
      exclusive: (task) => this.exclusive(parts.provider, task),
    };
  }

  /** Whether `emitIdle()` has anything to do: a broadcaster or observer hears it, or auto-compaction needs its estimate. */
  get idleHeard(): boolean {
    return (
      this.status.hasBroadcaster ||
      this.compaction.isAutomatic ||
      this.status.isObserved
    );
  }

  /**
   * Emits `idle` (docs/behavior/events-and-audit.md). The estimate is computed only when a broadcaster hears it or
   * auto-compaction needs it; it is returned so the automatic check does not compute it twice.
   */
  async emitIdle(): Promise<number | undefined> {
    if (!this.idleHeard) return undefined;
    const needed = this.status.hasBroadcaster || this.compaction.isAutomatic;
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

  // --- Internal helpers ---

  private initialize(): SessionParts {
    const parts = setUpSession(this.plan);
    this.resolved = parts;
    if (this.audit)
      parts.prompt.onRendered = (prompt, reason) =>
        this.record("prompt", { prompt, reason });
    if (hasSkillBlocks(this.plan.context)) {
      this.restoring = parts.skills
        .restore(parts.tree)
        .catch(warnRestore)
        .finally(() => {
          this.restoring = null;
        });
    }
    return parts;
  }
}

/**
 * The in-process state of the provider's store (state/store-runtime.ts), shared with every other
 * Session, provider and backend over the same store.
 */
function storeState(provider: SessionProvider): StoreRuntime {
  return storeRuntime(provider.storeIdentity ?? provider);
}

export function warnRestore(error: unknown): void {
  console.warn(
    `[arbor] Restoring loaded skills failed; tracking starts empty: ${messageOf(error)}`,
  );
}
