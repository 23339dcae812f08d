import { ATTACHMENT_STORE, isAttachmentStore } from "./attachments.js";
import { isOverlayRowId } from "./apply-compactions.js";

export { isOverlayRowId };
import type { PathEntry, SessionProvider } from "../contracts/provider.js";
import type { HistoryRowStat } from "../contracts/types.js";

/**
 * A provider view that keeps stored overlay rows out of every read (docs/behavior/overlays.md):
 * such a row is never the latest leaf, never on a path (so never twice beside the overlay's own
 * summary), never among a message's children; its children read as children of its parent. The
 * rows stay stored: `getMessage()`, search and exports see them as they are.
 *
 * The rule is applied here, once, for every backend. A read pays for it only when its result
 * holds a `compaction_` id: then the raw path is checked without content, and only a path that
 * really holds such a row is read again.
 */
export function hideOverlayRows(base: SessionProvider): SessionProvider {
  const view = passThrough(base);
  const rawLatestLeafId = async (): Promise<string | null> =>
    base.getLatestLeafId
      ? ((await base.getLatestLeafId()) ?? null)
      : ((await base.getLatestLeaf())?.id ?? null);
  const latestLeafId = async (): Promise<string | null> => {
    const id = await rawLatestLeafId();
    return isOverlayRowId(id)
      ? (await repair()).newestVisibleLeaf(base, id)
      : id;
  };
  // A read of the default leaf whose raw leaf turned out to be a hidden row is read again at
  // the newest visible leaf.
  const visibleLeaf = async (given: string | null | undefined) =>
    given ? given : ((await latestLeafId()) ?? undefined);

  view.getLatestLeafId = latestLeafId;
  view.getLatestLeaf = async () => {
    const leaf = await base.getLatestLeaf();
    if (!leaf || !isOverlayRowId(leaf.id)) return leaf;
    const id = await (await repair()).newestVisibleLeaf(base, leaf.id);
    return id === null ? null : base.getMessage(id);
  };
  view.getBranches = async (messageId) => {
    const children = await base.getBranches(messageId);
    if (!children.some((child) => isOverlayRowId(child.id))) return children;
    return (await repair()).visibleChildren(base, children, new Set());
  };

  view.getHistory = async (leafId) => {
    const history = await base.getHistory(leafId);
    if (!history.some((message) => isOverlayRowId(message.id))) return history;
    return (await repair()).visibleHistory(
      base,
      leafId || undefined,
      history,
      latestLeafId,
    );
  };

  if (base.getRecentHistory) {
    const recent = base.getRecentHistory.bind(base);
    view.getRecentHistory = async (leafId, maxContentBytes, minRecent) => {
      const result = await recent(leafId, maxContentBytes, minRecent);
      if (!result.messages.some((message) => isOverlayRowId(message.id)))
        return result;
      return (await repair()).visibleRecent(
        base,
        leafId || undefined,
        result,
        latestLeafId,
        {
          maxContentBytes,
          minRecent,
        },
      );
    };
  }
  if (base.getHistoryRowStats) {
    const stats = base.getHistoryRowStats.bind(base);
    view.getHistoryRowStats = async (leafId) =>
      visibleRows(await stats(leafId), leafId, visibleLeaf, stats);
  }
  if (base.getPathIds) {
    const pathIds = base.getPathIds.bind(base);
    view.getPathIds = async (leafId) =>
      visibleRows(await pathIds(leafId), leafId, visibleLeaf, pathIds);
  }
  if (base.getPathIdSet) {
    const pathIdSet = base.getPathIdSet.bind(base);
    view.getPathIdSet = async (leafId) => {
      const ids = await pathIdSet(leafId);
      if (![...ids].some(isOverlayRowId)) return ids;
      const leaf = await visibleLeaf(leafId);
      const path = leaf === (leafId || undefined) ? ids : await pathIdSet(leaf);
      return new Set([...path].filter((id) => !isOverlayRowId(id)));
    };
  }
  return view;
}

// --- Internal helpers ---

/** The code that reads around overlay rows, loaded when a read first meets one. */
function repair(): Promise<typeof import("./overlay-rows-repair.js")> {
  return import("./overlay-rows-repair.js");
}

/** The optional members a view passes through when the provider has them. */
const OPTIONAL_METHODS = [
  "getLatestLeafId",
  "appendMessages",
  "searchMessages",
  "getRecentHistory",
  "getHistoryRowStats",
  "getPathIds",
  "getPathIdSet",
  "getMessagesByIds",
  "createContextProvider",
  "createBlockHistory",
  "deleteCompaction",
  "importRecords",
  "getTokenEstimate",
  "countMessages",
  "exportMessages",
  "getConfig",
  "setConfig",
  "forSession",
  "watchChanges",
  "embeddings",
] as const satisfies readonly OptionalMethod[];

/** Every optional method of the contract, so a member added to it and not listed above fails to compile. */
type OptionalMethod = {
  [Name in keyof SessionProvider]-?: undefined extends SessionProvider[Name]
    ? NonNullable<SessionProvider[Name]> extends (...args: never[]) => unknown
      ? Name
      : never
    : never;
}[keyof SessionProvider];
const LISTS_EVERY_OPTIONAL_METHOD: [
  Exclude<OptionalMethod, (typeof OPTIONAL_METHODS)[number]>,
] extends [never]
  ? true
  : never = true;
void LISTS_EVERY_OPTIONAL_METHOD;

/** Every method of `base`, bound to it, and the fields a view must keep. */
function passThrough(base: SessionProvider): SessionProvider {
  const view: SessionProvider = {
    ...(base.sessionId !== undefined ? { sessionId: base.sessionId } : {}),
    storeIdentity: base.storeIdentity ?? base,
    ...(isAttachmentStore(base) ? { [ATTACHMENT_STORE]: true } : {}),
    getMessage: (id) => base.getMessage(id),
    getHistory: (leafId) => base.getHistory(leafId),
    getLatestLeaf: () => base.getLatestLeaf(),
    getBranches: (messageId) => base.getBranches(messageId),
    getPathLength: (leafId) => base.getPathLength(leafId),
    appendMessage: (message, parentId) => base.appendMessage(message, parentId),
    updateMessage: (message) => base.updateMessage(message),
    deleteMessages: (ids) => base.deleteMessages(ids),
    clearMessages: () => base.clearMessages(),
    addCompaction: (summary, from, to, meta) =>
      base.addCompaction(summary, from, to, meta),
    getCompactions: () => base.getCompactions(),
  };
  for (const name of OPTIONAL_METHODS) {
    const method: unknown = base[name];
    if (typeof method === "function")
      Object.assign(view, { [name]: method.bind(base) });
  }
  return view;
}

/** The path's rows without hidden ones; read again at the visible leaf when the default leaf was hidden. */
async function visibleRows<Row extends PathEntry | HistoryRowStat>(
  rows: Row[],
  leafId: string | null | undefined,
  visibleLeaf: (
    given: string | null | undefined,
  ) => Promise<string | undefined>,
  read: (leafId?: string | null) => Promise<Row[]> | Row[],
): Promise<Row[]> {
  if (!rows.some((row) => isOverlayRowId(row.id))) return rows;
  let path = rows;
  if (!leafId && isOverlayRowId(rows.at(-1)?.id)) {
    const leaf = await visibleLeaf(undefined);
    path = leaf === undefined ? [] : await read(leaf);
  }
  return path.filter((row) => !isOverlayRowId(row.id));
}
