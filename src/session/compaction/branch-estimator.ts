import { estimateMessageTokens } from "../tokens/estimate-tokens.js";
import type { SessionTree } from "../state/session-tree.js";
import type { MessageTokenCounts, SessionMessage } from "../contracts/types.js";

/**
 * The token total of the active branch's messages, kept up to date incrementally: an append at
 * the tip adds that one message's count, so the `compactAfter` check costs O(changed messages)
 * per append instead of re-reading the history (docs/behavior/overlays.md). Anything else
 * (updates, deletes, overlays, branch switches, writes by another process) invalidates it and the
 * next read recomputes once from `getHistory()`. Counts with the heuristic, or with the
 * per-message form of the counter in use (`use`).
 */
export class BranchEstimator {
  private cached: { leafId: string | null; tokens: number } | null = null;
  private counts: MessageTokenCounts | null = null;

  invalidate(): void {
    this.cached = null;
  }

  /** Counts with `counts` from now on (`null`: the heuristic); a change drops the cached total. */
  use(counts: MessageTokenCounts | null): void {
    if (counts === this.counts) return;
    this.counts = counts;
    this.cached = null;
  }

  /** The leaf the cached total belongs to, for callers that detect foreign writes. */
  get cachedLeafId(): string | null | undefined {
    return this.cached?.leafId;
  }

  /**
   * Records an inserted message whose parent was `parentId`: extends the total when the message
   * went onto the cached tip, otherwise invalidates.
   */
  appended(message: SessionMessage, parentId: string | null): void {
    if (this.cached && this.cached.leafId === parentId) {
      this.cached = {
        leafId: message.id,
        tokens: this.cached.tokens + this.count(message),
      };
    } else {
      this.cached = null;
    }
  }

  /** The estimate of the active branch's messages (overlays applied). */
  async messageTokens(tree: SessionTree): Promise<number> {
    const leafId = await tree.latestLeafId();
    if (this.cached && this.cached.leafId === leafId) return this.cached.tokens;
    let tokens = 0;
    for (const message of await tree.history()) tokens += this.count(message);
    this.cached = { leafId, tokens };
    return tokens;
  }

  // --- Internal helpers ---

  private count(message: SessionMessage): number {
    if (!this.counts) return estimateMessageTokens([message]);
    const value = this.counts.message(message);
    return Number.isFinite(value) ? Math.max(0, value) : 0;
  }
}
