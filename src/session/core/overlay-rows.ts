import { ATTACHMENT_STORE, isAttachmentStore } from "./attachments.js";
import { applyOverlaySpans, COMPACTION_PREFIX } from "./apply-compactions.js";
import { messagesFromSpans } from "./path-history.js";
import { chooseRecentWindow } from "./recent-window.js";
import type { PathEntry, SessionProvider } from "../contracts/provider.js";
import type {
  HistoryRowStat,
  RecentHistoryResult,
  SessionMessage,
} from "../contracts/types.js";

/**
 * True for the id of an overlay's summary (`compaction_…`). Overlays are derived at read time;
 * a stored row with such an id is a summary someone wrote back as a message (older versions of
 * the `agents/sessions` package, a mirror that stored what it read).
 */
export function isOverlayRowId(id: unknown): id is string {
  return typeof id === "string" && id.startsWith(COMPACTION_PREFIX);
}

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
    return isOverlayRowId(id) ? newestVisibleLeaf(base, id) : id;
  };
  // A read of the default leaf whose raw leaf turned out to be a hidden row is read again at
  // the newest visible leaf.
  const visibleLeaf = async (given: string | null | undefined) =>
    given ? given : ((await latestLeafId()) ?? undefined);

  view.getLatestLeafId = latestLeafId;
  view.getLatestLeaf = async () => {
    const leaf = await base.getLatestLeaf();
    if (!leaf || !isOverlayRowId(leaf.id)) return leaf;
    const id = await newestVisibleLeaf(base, leaf.id);
    return id === null ? null : base.getMessage(id);
  };
  view.getBranches = async (messageId) =>
    visibleChildren(base, await base.getBranches(messageId), new Set());

  view.getHistory = async (leafId) => {
    const history = await base.getHistory(leafId);
    if (!history.some((message) => isOverlayRowId(message.id))) return history;
    return visibleHistory(base, leafId || undefined, history, latestLeafId);
  };

  if (base.getRecentHistory) {
    const recent = base.getRecentHistory.bind(base);
    view.getRecentHistory = async (leafId, maxContentBytes, minRecent) => {
      const result = await recent(leafId, maxContentBytes, minRecent);
      if (!result.messages.some((message) => isOverlayRowId(message.id)))
        return result;
      return visibleRecent(base, leafId || undefined, result, latestLeafId, {
        maxContentBytes,
        minRecent,
      });
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

/** Children with hidden rows replaced by their own visible children, in order. */
async function visibleChildren(
  base: SessionProvider,
  children: SessionMessage[],
  seen: Set<string>,
): Promise<SessionMessage[]> {
  if (!children.some((child) => isOverlayRowId(child.id))) return children;
  const visible: SessionMessage[] = [];
  for (const child of children) {
    if (!isOverlayRowId(child.id)) visible.push(child);
    else if (!seen.has(child.id)) {
      seen.add(child.id);
      visible.push(
        ...(await visibleChildren(
          base,
          await base.getBranches(child.id),
          seen,
        )),
      );
    }
  }
  return visible;
}

/** The raw path's ids, without content; `null` when the provider cannot tell. */
async function rawPathIds(
  base: SessionProvider,
  leafId: string | undefined,
): Promise<string[] | null> {
  if (base.getPathIds)
    return (await base.getPathIds(leafId)).map((entry) => entry.id);
  if (base.getHistoryRowStats)
    return (await base.getHistoryRowStats(leafId)).map((row) => row.id);
  return null;
}

/**
 * `history` (the provider's answer for `leafId`) with hidden rows out: unchanged when the raw path
 * holds none (its `compaction_` ids are overlays' summaries), else rebuilt from the path without
 * them, so overlays apply as if the rows were never written. The default leaf, when it is a hidden
 * row, gives way to the newest visible leaf.
 */
async function visibleHistory(
  base: SessionProvider,
  leafId: string | undefined,
  history: SessionMessage[],
  latestLeafId: () => Promise<string | null>,
): Promise<SessionMessage[]> {
  const raw = await rawPathIds(base, leafId);
  if (raw !== null && !raw.some(isOverlayRowId)) return history;
  if (leafId === undefined && (raw === null || isOverlayRowId(raw.at(-1)))) {
    const leaf = await latestLeafId();
    if (leaf === null) return [];
    return visibleHistory(
      base,
      leaf,
      await base.getHistory(leaf),
      latestLeafId,
    );
  }
  if (raw === null || !base.getMessagesByIds)
    return withoutStrayRows(base, history);
  const ids = raw.filter((id) => !isOverlayRowId(id));
  const [messages, overlays] = await Promise.all([
    base.getMessagesByIds(ids),
    base.getCompactions(),
  ]);
  return messagesFromSpans(
    applyOverlaySpans(ids, overlays),
    (index) => messages[index],
  );
}

/**
 * The recent window chosen on the path without hidden rows: the provider's `result` when the
 * path holds none. Without row stats and window reads, the window's stray rows are dropped.
 */
async function visibleRecent(
  base: SessionProvider,
  leafId: string | undefined,
  result: RecentHistoryResult,
  latestLeafId: () => Promise<string | null>,
  budget: { maxContentBytes: number; minRecent: number | undefined },
): Promise<RecentHistoryResult> {
  if (!base.getHistoryRowStats || !base.getMessagesByIds)
    return {
      ...result,
      messages: await withoutStrayRows(base, result.messages),
    };
  let stats = await base.getHistoryRowStats(leafId);
  if (!stats.some((row) => isOverlayRowId(row.id))) return result;
  if (leafId === undefined && isOverlayRowId(stats.at(-1)?.id)) {
    const leaf = await latestLeafId();
    stats = leaf === null ? [] : await base.getHistoryRowStats(leaf);
  }
  const rows = stats.filter((row) => !isOverlayRowId(row.id));
  if (rows.length === 0)
    return { messages: [], truncated: false, totalContentBytes: 0 };
  const window = chooseRecentWindow(
    rows,
    await base.getCompactions(),
    budget.maxContentBytes,
    budget.minRecent,
  );
  const wanted = window.spans.flatMap((span) =>
    span.kind === "row" ? [span.index] : [],
  );
  const fetched = await base.getMessagesByIds(
    wanted.map((index) => rows[index]!.id),
  );
  const byIndex = new Map(wanted.map((index, at) => [index, fetched[at]]));
  return {
    messages: messagesFromSpans(window.spans, (index) => byIndex.get(index)),
    truncated: window.truncated,
    totalContentBytes: window.totalContentBytes,
  };
}

/**
 * Without the raw path: keeps a `compaction_` message only as an overlay's summary, once. A stored
 * row carrying the id of a summary shown before it is the one dropped.
 */
async function withoutStrayRows(
  base: SessionProvider,
  messages: SessionMessage[],
): Promise<SessionMessage[]> {
  const summaries = new Set(
    (await base.getCompactions()).map(
      (overlay) => COMPACTION_PREFIX + overlay.id,
    ),
  );
  const seen = new Set<string>();
  return messages.filter((message) => {
    if (!isOverlayRowId(message.id)) return true;
    if (!summaries.has(message.id) || seen.has(message.id)) return false;
    seen.add(message.id);
    return true;
  });
}

/**
 * The newest visible leaf when the provider's latest leaf is a hidden row: the newest message
 * with no visible child, children of hidden rows counting as their parent's. Read from the
 * session's export (rare: only while a hidden row is the newest leaf); without one, the nearest
 * visible ancestor of the hidden leaf, which is the same message unless that ancestor has other
 * children.
 */
async function newestVisibleLeaf(
  base: SessionProvider,
  hiddenLeafId: string,
): Promise<string | null> {
  if (!base.exportMessages) return nearestVisibleAncestor(base, hiddenLeafId);
  const records = await base.exportMessages();
  const parentOf = new Map(
    records.map((record) => [record.message.id, record.parentId]),
  );
  const visibleParent = (id: string): string | null => {
    const seen = new Set<string>();
    let parent = parentOf.get(id) ?? null;
    while (isOverlayRowId(parent) && !seen.has(parent)) {
      seen.add(parent);
      parent = parentOf.get(parent) ?? null;
    }
    return isOverlayRowId(parent) ? null : parent;
  };
  const parents = new Set<string>();
  for (const { message } of records) {
    if (isOverlayRowId(message.id)) continue;
    const parent = visibleParent(message.id);
    if (parent !== null) parents.add(parent);
  }
  for (let index = records.length - 1; index >= 0; index--) {
    const id = records[index]!.message.id;
    if (!isOverlayRowId(id) && !parents.has(id)) return id;
  }
  return null;
}

/** The last visible message on the path to a hidden row (a summary standing for its overlay's end). */
async function nearestVisibleAncestor(
  base: SessionProvider,
  hiddenId: string,
): Promise<string | null> {
  const raw = await rawPathIds(base, hiddenId);
  if (raw !== null)
    return raw.filter((id) => !isOverlayRowId(id)).at(-1) ?? null;
  const [history, overlays] = await Promise.all([
    base.getHistory(hiddenId),
    base.getCompactions(),
  ]);
  // The path ends at the hidden row itself, which may carry the id of a shown summary.
  const end =
    history.at(-1)?.id === hiddenId ? history.length - 1 : history.length;
  for (let index = end - 1; index >= 0; index--) {
    const id = history[index]!.id;
    if (!isOverlayRowId(id)) return id;
    const overlay = overlays.find(
      (entry) => COMPACTION_PREFIX + entry.id === id,
    );
    if (overlay) return overlay.toMessageId;
  }
  return null;
}
