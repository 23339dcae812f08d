import { visibleLatestLeafId } from "../tree/overlay-rows.js";
import {
  ACTIVE_LEAF_KEY,
  parseBranchPointer,
  type StoredBranchPointer as Pointer,
} from "../tree/stored-branch-pointer.js";
import type { SessionProvider } from "../contracts/provider.js";

/**
 * The branch `switchBranch()` chose (docs/behavior/messages-and-tree.md): until the next append,
 * the active leaf is the chosen message, so history reads, windows, estimates, compaction and the
 * next auto-parented append all follow the chosen branch (`SessionTree` asks `leafId()` and
 * passes the answer to the provider). The pointer is stored in the session's config when the
 * provider has it, so it survives a restart.
 */
export class BranchPointer {
  private pointer: Pointer | null | undefined;

  constructor(private readonly provider: SessionProvider) {}

  /** `false` once the pointer is known to be absent, so an append needs no await to ask it. */
  get mayHoldBranch(): boolean {
    return this.pointer !== null;
  }

  /** Points the active branch at `leafId`. */
  async set(leafId: string): Promise<void> {
    this.pointer = {
      leafId,
      newestAtSwitch: await visibleLatestLeafId(this.provider),
    };
    await this.provider.setConfig?.(
      ACTIVE_LEAF_KEY,
      JSON.stringify(this.pointer),
    );
  }

  /** Drops the pointer: the newest-leaf rule applies again. */
  async clear(): Promise<void> {
    if (this.pointer === null) return;
    this.pointer = null;
    await this.provider.setConfig?.(ACTIVE_LEAF_KEY, null);
  }

  /** The chosen leaf while the pointer holds, else `undefined`. */
  async leafId(): Promise<string | undefined> {
    if (this.pointer === undefined) this.pointer = await this.load();
    if (this.pointer === null) return undefined;
    const stillChosen =
      (await visibleLatestLeafId(this.provider)) ===
        this.pointer.newestAtSwitch &&
      (await this.provider.getMessage(this.pointer.leafId)) !== null;
    if (stillChosen) return this.pointer.leafId;
    await this.clear();
    return undefined;
  }

  // --- Internal helpers ---

  private async load(): Promise<Pointer | null> {
    return parseBranchPointer(await this.provider.getConfig?.(ACTIVE_LEAF_KEY));
  }
}
