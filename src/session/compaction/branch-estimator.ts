import { estimateMessageTokens } from "../core/estimate-tokens.js";
import type { SessionTree } from "../core/session-tree.js";
import type { SessionMessage } from "../contracts/types.js";

/**
 * The heuristic token total of the active branch's messages, kept up to date incrementally: an
 * append at the tip adds that one message's estimate, so the `compactAfter` check costs
 * O(changed messages) per append instead of re-reading the history (docs/behavior/overlays.md). Anything else
 * (updates, deletes, overlays, branch switches, writes by another process) invalidates it and the
 * next read recomputes once from `getHistory()`.
 */
export class BranchEstimator {
  private cached: { leafId: string | null; tokens: number } | null = null;

  invalidate(): void {
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
        tokens: this.cached.tokens + estimateMessageTokens([message]),
      };
    } else {
      this.cached = null;
    }
  }

  /** The estimate of the active branch's messages (overlays applied). */
  async messageTokens(tree: SessionTree): Promise<number> {
    const leafId = await tree.latestLeafId();
    if (this.cached && this.cached.leafId === leafId) return this.cached.tokens;
    const tokens = estimateMessageTokens(await tree.history());
    this.cached = { leafId, tokens };
    return tokens;
  }
}
