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

  /**
   * A provider whose default leaf follows the pointer; every other call goes straight through.
   * Built from `VIEW_ROUTES`, which names every member of the contract, so a member added to
   * `SessionProvider` fails the type check until it is routed here: a member left out would
   * silently send the Session to a slower fallback (as `countMessages` once did).
   */
  view(): SessionProvider {
    const base = this.provider;
    const leaf = async (given?: string | null) =>
      given ? given : await this.leafId();
    // The members whose default leaf or branch pointer matters.
    const routed: Required<Pick<SessionProvider, RoutedMember>> = {
      getHistory: async (leafId) => base.getHistory(await leaf(leafId)),
      getLatestLeaf: async () => {
        const chosen = await this.leafId();
        return chosen ? base.getMessage(chosen) : base.getLatestLeaf();
      },
      getLatestLeafId: async () =>
        (await this.leafId()) ?? (await latestLeafId(base)),
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
      appendMessages: async (messages, parentId) => {
        const chosen = parentId === undefined ? await this.leafId() : undefined;
        const result = await base.appendMessages!(messages, chosen ?? parentId);
        if (result.inserted.includes(true)) await this.clear();
        return result;
      },
      clearMessages: async () => {
        await base.clearMessages();
        await this.clear();
      },
    };
    const view: Record<string, unknown> = {
      storeIdentity: base.storeIdentity ?? base,
      ...(isAttachmentStore(base) ? { [ATTACHMENT_STORE]: true } : {}),
    };
    for (const [name, route] of Object.entries(VIEW_ROUTES) as Array<
      [keyof SessionProvider, Route]
    >) {
      const member: unknown = base[name];
      if (route === "identity") continue;
      if (route === "value") {
        if (member !== undefined) view[name] = member;
      } else if (route === "pointer") {
        view[name] = routed[name as RoutedMember];
      } else if (route === "pointer-if-present") {
        if (typeof member === "function")
          view[name] = routed[name as RoutedMember];
      } else if (typeof member === "function") {
        const method = member as (...args: unknown[]) => unknown;
        view[name] =
          route === "through"
            ? (...args: unknown[]) => method.apply(base, args)
            : async (leafId: string | null | undefined, ...rest: unknown[]) =>
                method.apply(base, [await leaf(leafId), ...rest]);
      }
    }
    return view as unknown as SessionProvider;
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

/**
 * How the branch-pointer view passes each member of the contract on:
 * - `through`: the same call, unchanged;
 * - `leaf`: the first argument is a leaf id, and an omitted one becomes the chosen leaf;
 * - `pointer`: written out in `view()` (it reads or ends the pointer);
 * - `pointer-if-present`: the same, for an optional member the provider has;
 * - `value`: a plain property, copied;
 * - `identity`: the view's own (`storeIdentity` is the base's, so both share one append lock).
 */
type Route =
  "through" | "leaf" | "pointer" | "pointer-if-present" | "value" | "identity";

/** The members written out in `view()`. */
type RoutedMember =
  | "appendMessages"
  | "getHistory"
  | "getLatestLeaf"
  | "getLatestLeafId"
  | "getPathLength"
  | "appendMessage"
  | "clearMessages";

/**
 * Every member of `SessionProvider`, routed. `satisfies Record<keyof SessionProvider, Route>`
 * makes a missing or unknown name a type error.
 */
const VIEW_ROUTES = {
  sessionId: "value",
  storeIdentity: "identity",
  getMessage: "through",
  getHistory: "pointer",
  getLatestLeaf: "pointer",
  getLatestLeafId: "pointer",
  getBranches: "through",
  getPathLength: "pointer",
  appendMessage: "pointer",
  appendMessages: "pointer-if-present",
  updateMessage: "through",
  deleteMessages: "through",
  clearMessages: "pointer",
  addCompaction: "through",
  getCompactions: "through",
  searchMessages: "through",
  getRecentHistory: "leaf",
  getHistoryRowStats: "leaf",
  getPathIds: "leaf",
  getPathIdSet: "leaf",
  getMessagesByIds: "through",
  createContextProvider: "through",
  createBlockHistory: "through",
  deleteCompaction: "through",
  importRecords: "through",
  getTokenEstimate: "through",
  countMessages: "through",
  exportMessages: "through",
  getConfig: "through",
  setConfig: "through",
  forSession: "through",
  watchChanges: "through",
  embeddings: "through",
} as const satisfies Record<keyof SessionProvider, Route>;

/** The latest leaf's id, without decoding the message when the provider can tell. */
export async function latestLeafId(
  provider: SessionProvider,
): Promise<string | null> {
  if (provider.getLatestLeafId)
    return (await provider.getLatestLeafId()) ?? null;
  return (await provider.getLatestLeaf())?.id ?? null;
}
