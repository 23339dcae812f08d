import { BranchPointer } from "./branch-pointer.js";
import {
  isOverlayRowId,
  visibleBranches,
  visibleHistory,
  visibleLatestLeaf,
  visibleLatestLeafId,
  visiblePathIdSet,
  visiblePathIds,
  visibleRecentHistory,
  visibleRowStats,
} from "../tree/overlay-rows.js";
import type { PathEntry, SessionProvider } from "../contracts/provider.js";
import type {
  HistoryRowStat,
  RecentHistoryResult,
  SessionMessage,
} from "../contracts/types.js";

/**
 * The tree of one Session as its API reads it (docs/behavior/messages-and-tree.md), over the
 * provider's plain contract. Every read that has a default leaf resolves it here, explicitly: the
 * given leaf, else the branch `switchBranch()` chose while that choice holds, else the provider's
 * latest (passed as `undefined`, so the provider resolves it in the same read). The leaf is then
 * passed to the provider as an argument, and stored overlay rows are kept out of the answer
 * (tree/overlay-rows.ts). Writes ask `appendParent()` for the parent of an auto-parented append
 * and report inserts and clears, which end the chosen branch.
 *
 * Calls that have no default leaf (`getMessage`, overlays, config, search, exports) go to
 * `provider` directly.
 */
export class SessionTree {
  /** The chosen branch of `switchBranch()`. */
  readonly pointer: BranchPointer;

  constructor(readonly provider: SessionProvider) {
    this.pointer = new BranchPointer(provider);
  }

  /** The leaf a read of `given` starts from: `given`, else the chosen leaf; `undefined` = the provider's latest. */
  async leaf(given?: string | null): Promise<string | undefined> {
    return given ? given : await this.pointer.leafId();
  }

  /** The active leaf's id: the chosen one, else the newest visible leaf; `null` for an empty session. */
  async latestLeafId(): Promise<string | null> {
    return (
      (await this.pointer.leafId()) ??
      (await visibleLatestLeafId(this.provider))
    );
  }

  /** The active leaf, raw, or `null`. */
  async latestLeaf(): Promise<SessionMessage | null> {
    const chosen = await this.pointer.leafId();
    if (chosen) return (await this.provider.getMessage(chosen)) ?? null;
    return visibleLatestLeaf(this.provider);
  }

  /** The path root → leaf with overlays applied (active leaf by default). */
  async history(leafId?: string | null): Promise<SessionMessage[]> {
    return visibleHistory(this.provider, await this.leaf(leafId));
  }

  /**
   * The active branch's history and its leaf id (`null` for an empty session), as `latestLeaf()`
   * then `history()` of it would give them. With no chosen branch and a provider that has
   * `getHistoryAndLeaf`, one read; a leaf or path that holds a hidden overlay row falls back.
   */
  async activeHistory(): Promise<{
    messages: SessionMessage[];
    leafId: string | null;
  }> {
    const chosen = await this.pointer.leafId();
    if (chosen === undefined && this.provider.getHistoryAndLeaf) {
      const read = await this.provider.getHistoryAndLeaf(undefined);
      if (
        !isOverlayRowId(read.leafId) &&
        !read.messages.some((message) => isOverlayRowId(message.id))
      )
        return read;
    }
    const leafId = (await this.latestLeaf())?.id ?? null;
    return {
      messages:
        leafId === null ? [] : await visibleHistory(this.provider, leafId),
      leafId,
    };
  }

  /**
   * `activeHistory()` in one read when the provider has `getHistoryAndLeafWithin` and the path
   * is within `within`; `null` otherwise (a larger path, a chosen branch, a path or leaf that
   * holds a hidden overlay row, or a provider without it), for the caller to read it in windows.
   */
  async activeHistoryWithin(within: {
    messages: number;
    bytes: number;
  }): Promise<{ messages: SessionMessage[]; leafId: string | null } | null> {
    if (!this.provider.getHistoryAndLeafWithin) return null;
    if ((await this.pointer.leafId()) !== undefined) return null;
    const read = await this.provider.getHistoryAndLeafWithin(undefined, within);
    if (
      read === null ||
      isOverlayRowId(read.leafId) ||
      read.messages.some((message) => isOverlayRowId(message.id))
    )
      return null;
    return read;
  }

  /** Children of `messageId`, oldest first; a hidden row's children stand in for it. */
  async branches(messageId: string): Promise<SessionMessage[]> {
    return visibleBranches(this.provider, messageId);
  }

  /**
   * Whether the stored message `id` reads as a child of `parentId`, as `branches()` shows it;
   * `null`, or a parent not in the session, asks whether it is a root.
   */
  async readsUnder(id: string, parentId: string | null): Promise<boolean> {
    if (
      parentId !== null &&
      (await this.provider.getMessage(parentId)) !== null
    )
      return (await visibleBranches(this.provider, parentId)).some(
        (child) => child.id === id,
      );
    return (await this.provider.getPathLength(id)) === 1;
  }

  /** Stored rows on the path (active leaf by default). */
  async pathLength(leafId?: string | null): Promise<number> {
    return this.provider.getPathLength(await this.leaf(leafId));
  }

  /** The byte-budgeted suffix of the path; `null` when the provider has no `getRecentHistory`. */
  async recentHistory(
    leafId: string | null | undefined,
    maxContentBytes: number,
    minRecentMessages?: number,
  ): Promise<RecentHistoryResult | null> {
    return visibleRecentHistory(
      this.provider,
      await this.leaf(leafId),
      maxContentBytes,
      minRecentMessages,
    );
  }

  /** `{ id, role, bytes }` per row of the path; `null` when the provider cannot tell. */
  async historyRowStats(
    leafId?: string | null,
  ): Promise<HistoryRowStat[] | null> {
    return visibleRowStats(this.provider, await this.leaf(leafId));
  }

  /** `{ id, bytes }` per row of the path, root first; `null` when the provider has no `getPathIds`. */
  async pathIds(leafId?: string | null): Promise<PathEntry[] | null> {
    return visiblePathIds(this.provider, await this.leaf(leafId));
  }

  /** The ids on the path, in no order, from the cheapest read the provider has. */
  async pathIdSet(leafId?: string | null): Promise<ReadonlySet<string>> {
    return visiblePathIdSet(this.provider, await this.leaf(leafId));
  }

  /** The parent to pass for an append under `parentId`: an omitted one becomes the chosen leaf. */
  async appendParent(
    parentId: string | null | undefined,
  ): Promise<string | null | undefined> {
    return parentId === undefined ? await this.pointer.leafId() : parentId;
  }

  /** After a write that inserted a message or cleared the session: the chosen branch ends. */
  async changed(): Promise<void> {
    await this.pointer.clear();
  }
}
