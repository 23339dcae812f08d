import { ATTACHMENT_STORE, isAttachmentStore } from "./attachments.js";
import type { SessionProvider } from "../contracts/provider.js";
import type { SessionMessage } from "../contracts/types.js";

/** The `assistant_config` key of the explicit active leaf (docs/behavior/messages-and-tree.md). */
export const ACTIVE_LEAF_KEY = "active_leaf";

interface Pointer {
  /** The message the active branch ends at. */
  leafId: string;
  /** The newest leaf when the pointer was set: any later append (which changes it) ends the pointer. */
  newestAtSwitch: string | null;
}

/**
 * A provider view that honours `switchBranch()` (docs/behavior/messages-and-tree.md): until the next append, the
 * "latest leaf" is the chosen message, so history reads, windows, estimates, compaction and the
 * next auto-parented append all follow the chosen branch. The pointer is stored in the
 * session's config when the provider has it, so it survives a restart.
 */
export class BranchPointer {
  private pointer: Pointer | null | undefined;

  constructor(private readonly provider: SessionProvider) {}

  /** Points the active branch at `leafId`. */
  async set(leafId: string): Promise<void> {
    this.pointer = {
      leafId,
      newestAtSwitch: await latestLeafId(this.provider),
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
      (await latestLeafId(this.provider)) === this.pointer.newestAtSwitch &&
      (await this.provider.getMessage(this.pointer.leafId)) !== null;
    if (stillChosen) return this.pointer.leafId;
    await this.clear();
    return undefined;
  }

  /** A provider whose default leaf follows the pointer; every other call goes straight through. */
  view(): SessionProvider {
    const base = this.provider;
    const leaf = async (given?: string | null) =>
      given ? given : await this.leafId();
    const view: SessionProvider = {
      ...(base.sessionId !== undefined ? { sessionId: base.sessionId } : {}),
      storeIdentity: base.storeIdentity ?? base,
      ...(isAttachmentStore(base) ? { [ATTACHMENT_STORE]: true } : {}),
      getMessage: (id) => base.getMessage(id),
      getHistory: async (leafId) => base.getHistory(await leaf(leafId)),
      getLatestLeaf: async () => {
        const chosen = await this.leafId();
        return chosen ? base.getMessage(chosen) : base.getLatestLeaf();
      },
      getLatestLeafId: async () =>
        (await this.leafId()) ?? (await latestLeafId(base)),
      getBranches: (messageId) => base.getBranches(messageId),
      getPathLength: async (leafId) => base.getPathLength(await leaf(leafId)),
      appendMessage: async (
        message: SessionMessage,
        parentId?: string | null,
      ) => {
        const chosen = parentId === undefined ? await this.leafId() : undefined;
        const inserted = await base.appendMessage(message, chosen ?? parentId);
        if (inserted !== false) await this.clear();
        return inserted;
      },
      updateMessage: (message) => base.updateMessage(message),
      deleteMessages: (ids) => base.deleteMessages(ids),
      clearMessages: async () => {
        await base.clearMessages();
        await this.clear();
      },
      addCompaction: (summary, from, to, meta) =>
        base.addCompaction(summary, from, to, meta),
      getCompactions: () => base.getCompactions(),
    };
    if (base.appendMessages) {
      const appendBatch = base.appendMessages.bind(base);
      view.appendMessages = async (messages, parentId) => {
        const chosen = parentId === undefined ? await this.leafId() : undefined;
        const result = await appendBatch(messages, chosen ?? parentId);
        if (result.inserted.includes(true)) await this.clear();
        return result;
      };
    }
    if (base.searchMessages) {
      const search = base.searchMessages.bind(base);
      view.searchMessages = (query, limit, options) =>
        options === undefined
          ? search(query, limit)
          : search(query, limit, options);
    }
    if (base.getRecentHistory) {
      const recent = base.getRecentHistory.bind(base);
      view.getRecentHistory = async (leafId, max, min) =>
        recent(await leaf(leafId), max, min);
    }
    if (base.getHistoryRowStats) {
      const stats = base.getHistoryRowStats.bind(base);
      view.getHistoryRowStats = async (leafId) => stats(await leaf(leafId));
    }
    if (base.getPathIds) {
      const pathIds = base.getPathIds.bind(base);
      view.getPathIds = async (leafId) => pathIds(await leaf(leafId));
    }
    if (base.getPathIdSet) {
      const pathIdSet = base.getPathIdSet.bind(base);
      view.getPathIdSet = async (leafId) => pathIdSet(await leaf(leafId));
    }
    for (const name of [
      "createContextProvider",
      "createBlockHistory",
      "deleteCompaction",
      "exportMessages",
      "getMessagesByIds",
      "importRecords",
      "getConfig",
      "setConfig",
      "forSession",
      "watchChanges",
    ] as const) {
      const method = base[name];
      if (typeof method === "function") {
        (view as unknown as Record<string, unknown>)[name] = method.bind(base);
      }
    }
    return view;
  }

  // --- Internal helpers ---

  private async load(): Promise<Pointer | null> {
    const stored = await this.provider.getConfig?.(ACTIVE_LEAF_KEY);
    if (!stored) return null;
    try {
      const value = JSON.parse(stored) as Pointer;
      return typeof value.leafId === "string" ? value : null;
    } catch {
      return null;
    }
  }
}

/** The latest leaf's id, without decoding the message when the provider can tell. */
export async function latestLeafId(
  provider: SessionProvider,
): Promise<string | null> {
  if (provider.getLatestLeafId)
    return (await provider.getLatestLeafId()) ?? null;
  return (await provider.getLatestLeaf())?.id ?? null;
}
