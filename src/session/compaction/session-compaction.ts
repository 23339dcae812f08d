import { estimateStringTokens } from "../tokens/estimate-tokens.js";
import { ArborError } from "../errors/index.js";
import type {
  SessionProvider,
  StoreTokenEstimate,
} from "../contracts/provider.js";
import { multilingualTokenCounter } from "../tokens/multilingual-tokens.js";
import type { SessionTree } from "../state/session-tree.js";
import { messageOf, type StatusEmitter } from "../facade/status.js";
import type { SystemPrompt } from "../context/system-prompt.js";
import type { ContextBlocks } from "../context/context-blocks.js";
import type {
  CompactAfterOptions,
  CompactContext,
  CompactionErrorHandler,
  CompactCallOptions,
  CompactResult,
  SessionMessage,
  SessionTokenCounter,
  StoredCompaction,
} from "../contracts/types.js";
import { BranchEstimator } from "./branch-estimator.js";

/** `onCompaction(fn)`: summarizes messages into an overlay, or answers `null` for "nothing to do". */
export type CompactionFunction = (
  messages: SessionMessage[],
  context?: CompactContext,
) => Promise<CompactResult | null>;

/** What compaction needs from its session. */
export interface CompactionHost {
  /** The session's tree: history of the active branch, and the provider for overlays. */
  tree: SessionTree;
  prompt: SystemPrompt;
  blocks: ContextBlocks;
  status: StatusEmitter;
  /** Told about each stored overlay (audit). */
  onOverlay?: (overlay: StoredCompaction) => void;
  /** The session's erase epoch (erase/erase-rules.ts); a change during a compaction cancels it. */
  eraseEpoch?: () => number;
  /** Runs `task` under the session's append lock, which an erase holds while it runs. */
  exclusive?: <T>(task: () => Promise<T>) => Promise<T>;
}

/**
 * Compaction of one session (docs/behavior/overlays.md): manual `compact()`, the automatic check
 * after each insert, single-flight, token estimates and overlay provenance.
 */
export class SessionCompaction {
  compactFunction: CompactionFunction | null = null;
  threshold: number | null = null;
  tokenCounter: SessionTokenCounter | undefined;
  errorHandler: CompactionErrorHandler | undefined;
  readonly estimator = new BranchEstimator();
  private running: Promise<unknown> | null = null;
  private storeEstimate: Promise<StoreTokenEstimate> | null = null;
  private warnedNoFunction = false;
  private warnedNoop = false;

  /** Whether inserts run the automatic check. */
  get isAutomatic(): boolean {
    return this.threshold !== null && this.compactFunction !== null;
  }

  configureAfter(threshold: number, options: CompactAfterOptions = {}): void {
    this.threshold = threshold;
    if (options.tokenCounter) this.tokenCounter = options.tokenCounter;
  }

  /**
   * The estimate of docs/behavior/overlays.md: the counter in use (`compactAfter`'s, else the one
   * the store was created with), cached per message when it has a per-message form; a whole-request
   * counter without one reads the branch each time.
   */
  async estimate(host: CompactionHost): Promise<number> {
    const counter = await this.counterFor(host.tree.provider);
    if (counter && !counter.perMessage) {
      await host.blocks.load();
      const result = await counter({
        messages: await host.tree.history(),
        systemPrompt: await host.prompt.current(),
        contextBlocks: host.blocks.list(),
      });
      return Number.isFinite(result) ? Math.max(0, Math.ceil(result)) : 0;
    }
    const counts = counter?.perMessage ?? null;
    this.estimator.use(counts);
    const messages = await this.estimator.messageTokens(host.tree);
    const prompt = await host.prompt.current();
    const promptTokens = counts
      ? counts.text(prompt)
      : estimateStringTokens(prompt);
    return (
      messages +
      (Number.isFinite(promptTokens) ? Math.max(0, Math.ceil(promptTokens)) : 0)
    );
  }

  /**
   * The counter in use: `compactAfter`'s, else the store's recorded default
   * (`getTokenEstimate`, read once), `undefined` for the heuristic.
   */
  async counterFor(
    provider: SessionProvider,
  ): Promise<SessionTokenCounter | undefined> {
    if (this.tokenCounter) return this.tokenCounter;
    this.storeEstimate ??= Promise.resolve(
      provider.getTokenEstimate?.() ?? "heuristic",
    ).then(
      (estimate) => estimate,
      () => "heuristic" as const,
    );
    return (await this.storeEstimate) === "multilingual"
      ? MULTILINGUAL_COUNTER
      : undefined;
  }

  /** Runs one compaction; calls queue behind the one in flight. */
  compact(
    host: CompactionHost,
    leafId?: string | null,
    options: CompactCallOptions = {},
  ): Promise<CompactResult | null> {
    if (!this.compactFunction) {
      throw new ArborError(
        "COMPACTION_NOT_CONFIGURED",
        "No compaction function registered. Call onCompaction() first.",
      );
    }
    const previous = this.running ?? Promise.resolve();
    const run = previous.then(
      () => this.compactOnce(host, leafId, options.requestKey),
      () => this.compactOnce(host, leafId, options.requestKey),
    );
    this.running = run;
    void run.then(
      () => this.settle(run),
      () => this.settle(run),
    );
    return run;
  }

  /** The automatic path after an insert: never throws (docs/behavior/overlays.md). */
  async afterInsert(
    host: CompactionHost,
    knownEstimate?: number,
  ): Promise<void> {
    if (this.threshold === null) return;
    if (!this.compactFunction) {
      if (!this.warnedNoFunction) {
        this.warnedNoFunction = true;
        console.warn(
          "[arbor] compactAfter() is set but no compaction function is registered; call onCompaction() to enable auto-compaction",
        );
      }
      return;
    }
    // Single-flight: an insert during a compaction does not start another one.
    if (this.running) return;
    try {
      const estimate = knownEstimate ?? (await this.estimate(host));
      if (estimate <= this.threshold) return;
      const result = await this.compact(host);
      if (result === null) {
        if (!this.warnedNoop) {
          this.warnedNoop = true;
          const { nothingCompactedWarning } = await import("./overlay-plan.js");
          console.warn(nothingCompactedWarning(estimate, this.threshold));
        }
      } else {
        this.warnedNoop = false;
      }
    } catch (error) {
      await this.reportAutomaticFailure(error);
    }
  }

  // --- Internal helpers ---

  private settle(run: Promise<unknown>): void {
    if (this.running === run) this.running = null;
  }

  private async compactOnce(
    host: CompactionHost,
    leafId?: string | null,
    requestKey?: string,
  ): Promise<CompactResult | null> {
    const compactFunction = this.compactFunction!;
    // A repeat of a keyed compaction answers what the first stored, before any model call.
    if (requestKey !== undefined) {
      const { storedUnder, checkRequestKey } =
        await import("./overlay-plan.js");
      checkRequestKey(requestKey);
      const earlier = await storedUnder(host.tree.provider, requestKey);
      if (earlier) return earlier;
    }
    try {
      const epoch = host.eraseEpoch?.();
      const tokensBefore = await this.estimate(host);
      this.emitPhase(host, "compacting", tokensBefore);
      const history = await host.tree.history(leafId);
      const context: CompactContext = {};
      const counter = await this.counterFor(host.tree.provider);
      if (counter) context.tokenCounter = counter;
      if (this.threshold !== null) context.threshold = this.threshold;
      const result = await compactFunction(history, context);
      if (!result) {
        this.emitPhase(host, "idle", tokensBefore);
        return null;
      }
      const overlays = await host.tree.provider.getCompactions();
      // Loaded only when a compaction stores something (docs/behavior/runtime.md).
      const { planOverlay, estimateWithOverlay, storedUnder } =
        await import("./overlay-plan.js");
      const plan = await planOverlay(
        host.tree,
        leafId,
        history,
        overlays,
        result,
      );
      if (!plan) {
        console.warn(
          `[arbor] The compaction result ${result.fromMessageId}..${result.toMessageId} is not a range of this branch; nothing was stored`,
        );
        this.emitPhase(host, "idle", tokensBefore);
        return null;
      }
      const tokensAfter = await estimateWithOverlay(
        history,
        plan,
        result.summary,
        counter,
      );
      // Under the append lock: an erase either ran before (then the epoch moved, or the range is
      // gone) and nothing is stored, or runs after and finds the overlay (erase-and-retention.md).
      const store = async (): Promise<StoreOutcome> => {
        // Checked again under the lock: a repeat that queued behind the first in another Session
        // object of this process finds its overlay here.
        const earlier =
          requestKey === undefined
            ? null
            : await storedUnder(host.tree.provider, requestKey);
        if (earlier) return { earlier };
        const erased =
          host.eraseEpoch?.() !== epoch ||
          (await host.tree.provider.getMessage(plan.from)) === null ||
          (await host.tree.provider.getMessage(plan.to)) === null;
        if (erased) return { erased: true };
        const overlay = await host.tree.provider.addCompaction(
          result.summary,
          plan.from,
          plan.to,
          {
            ...result.meta,
            tokensBefore,
            tokensAfter,
            coveredMessages: plan.covered,
            ...(requestKey === undefined ? {} : { requestKey }),
          },
        );
        return { overlay };
      };
      const outcome = await (host.exclusive ? host.exclusive(store) : store());
      if ("earlier" in outcome) {
        this.emitPhase(host, "idle", tokensBefore);
        return outcome.earlier;
      }
      if ("erased" in outcome) {
        console.warn(
          "[arbor] Messages of this compaction were erased or deleted while it ran; its summary was not stored",
        );
        this.emitPhase(host, "idle", tokensBefore);
        return null;
      }
      const { overlay } = outcome;
      host.onOverlay?.(overlay);
      this.estimator.invalidate();
      await host.prompt.refresh();
      const tokenEstimate = await this.estimate(host);
      host.status.emit({
        type: "cf_agent_session",
        phase: "idle",
        tokenEstimate,
        tokenThreshold: this.threshold,
        compacted: { tokensBefore },
      });
      return { ...result, fromMessageId: plan.from, toMessageId: plan.to };
    } catch (error) {
      host.status.emit({
        type: "cf_agent_session_error",
        error: messageOf(error),
      });
      throw error;
    }
  }

  private emitPhase(
    host: CompactionHost,
    phase: "idle" | "compacting",
    tokenEstimate: number,
  ) {
    host.status.emit({
      type: "cf_agent_session",
      phase,
      tokenEstimate,
      tokenThreshold: this.threshold,
    });
  }

  private async reportAutomaticFailure(error: unknown): Promise<void> {
    if (!this.errorHandler) {
      console.warn(`Session auto-compaction failed: ${messageOf(error)}`);
      return;
    }
    try {
      await this.errorHandler(error);
    } catch (handlerError) {
      console.warn(
        `[arbor] onCompactionError handler threw: ${messageOf(handlerError)}`,
      );
    }
  }
}

/** The counter of stores created with the multilingual default (one instance: `use` compares it). */
const MULTILINGUAL_COUNTER = multilingualTokenCounter();

/** What the locked store step of a compaction did. */
type StoreOutcome =
  { overlay: StoredCompaction } | { earlier: CompactResult } | { erased: true };
