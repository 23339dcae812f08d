import {
  COMPACTION_PREFIX,
  isOverlayRowId,
  type HiddenRowTest,
} from "./apply-compactions.js";
import type { PathEntry, SessionProvider } from "../contracts/provider.js";
import type {
  HistoryRowStat,
  RecentHistoryResult,
  SessionMessage,
} from "../contracts/types.js";

export { isOverlayRowId, type HiddenRowTest };

/*
 * A stored row that carries the id of one of this session's overlays (`compaction_<overlay id>`)
 * stays out of every read of the Session (docs/behavior/overlays.md): it is a summary written back
 * as a message (older versions of the `agents/sessions` package, a mirror that stored what it
 * read), and the overlay already shows it. Such a row is never the latest leaf, never on a path
 * (so never twice beside the overlay's own summary), never among a message's children; its
 * children read as children of its parent, in their own place among them. A `compaction_` row
 * that no overlay of this session stands for (a summary imported from another session) is the
 * only copy of its text and reads as any message. Hidden rows stay stored: `getMessage()`,
 * search and exports see them as they are.
 *
 * Each function below is one provider read with the rule applied, the same for every backend.
 * `leafId` is the leaf the caller resolved (`SessionTree`), `undefined` for the provider's latest.
 * A read pays for the rule only when its result holds a `compaction_` id: then the overlays are
 * read to tell which rows they hide, and the raw path is checked without content.
 */

/** The hidden-row test of this session, from its overlays (read when a result holds a `compaction_` id). */
export async function hiddenRowTest(
  provider: SessionProvider,
): Promise<HiddenRowTest> {
  const ids = new Set(
    (await provider.getCompactions()).map(
      (overlay) => COMPACTION_PREFIX + overlay.id,
    ),
  );
  return (id): id is string => typeof id === "string" && ids.has(id);
}

/** The provider's latest leaf id, without decoding the message when the provider can tell. */
export async function latestLeafId(
  provider: SessionProvider,
): Promise<string | null> {
  if (provider.getLatestLeafId)
    return (await provider.getLatestLeafId()) ?? null;
  return (await provider.getLatestLeaf())?.id ?? null;
}

/** The newest leaf that is not a hidden row. */
export async function visibleLatestLeafId(
  provider: SessionProvider,
): Promise<string | null> {
  const id = await latestLeafId(provider);
  if (!isOverlayRowId(id)) return id;
  const hidden = await hiddenRowTest(provider);
  return hidden(id)
    ? (await repair()).newestVisibleLeaf(provider, id, hidden)
    : id;
}

/** The newest leaf that is not a hidden row, as a raw message. */
export async function visibleLatestLeaf(
  provider: SessionProvider,
): Promise<SessionMessage | null> {
  const leaf = (await provider.getLatestLeaf()) ?? null;
  if (!leaf || !isOverlayRowId(leaf.id)) return leaf;
  const hidden = await hiddenRowTest(provider);
  if (!hidden(leaf.id)) return leaf;
  const id = await (
    await repair()
  ).newestVisibleLeaf(provider, leaf.id, hidden);
  return id === null ? null : provider.getMessage(id);
}

/** `getBranches` with each hidden child replaced by its own visible children. */
export async function visibleBranches(
  provider: SessionProvider,
  messageId: string,
): Promise<SessionMessage[]> {
  const children = await provider.getBranches(messageId);
  if (!children.some((child) => isOverlayRowId(child.id))) return children;
  const hidden = await hiddenRowTest(provider);
  if (!children.some((child) => hidden(child.id))) return children;
  return (await repair()).visibleBranches(provider, children, hidden);
}

/** `getHistory(leafId)` without hidden rows. */
export async function visibleHistory(
  provider: SessionProvider,
  leafId: string | undefined,
): Promise<SessionMessage[]> {
  const history = await provider.getHistory(leafId);
  if (!history.some((message) => isOverlayRowId(message.id))) return history;
  return (await repair()).visibleHistory(
    provider,
    leafId,
    history,
    () => visibleLatestLeafId(provider),
    () => hiddenRowTest(provider),
  );
}

/** `getRecentHistory` without hidden rows; `null` when the provider has no `getRecentHistory`. */
export async function visibleRecentHistory(
  provider: SessionProvider,
  leafId: string | undefined,
  maxContentBytes: number,
  minRecent: number | undefined,
): Promise<RecentHistoryResult | null> {
  if (!provider.getRecentHistory) return null;
  const result = await provider.getRecentHistory(
    leafId,
    maxContentBytes,
    minRecent,
  );
  if (!result.messages.some((message) => isOverlayRowId(message.id)))
    return result;
  return (await repair()).visibleRecent(
    provider,
    leafId,
    result,
    () => visibleLatestLeafId(provider),
    () => hiddenRowTest(provider),
    { maxContentBytes, minRecent },
  );
}

/** `getHistoryRowStats` without hidden rows; `null` when the provider has none. */
export async function visibleRowStats(
  provider: SessionProvider,
  leafId: string | undefined,
): Promise<HistoryRowStat[] | null> {
  if (!provider.getHistoryRowStats) return null;
  const read = provider.getHistoryRowStats.bind(provider);
  return visibleRows(provider, await read(leafId), leafId, read);
}

/** `getPathIds` without hidden rows; `null` when the provider has none. */
export async function visiblePathIds(
  provider: SessionProvider,
  leafId: string | undefined,
): Promise<PathEntry[] | null> {
  if (!provider.getPathIds) return null;
  const read = provider.getPathIds.bind(provider);
  return visibleRows(provider, await read(leafId), leafId, read);
}

/**
 * The ids on the path without hidden rows, in no order: `getPathIdSet`, else `getPathIds`, else
 * the history's ids.
 */
export async function visiblePathIdSet(
  provider: SessionProvider,
  leafId: string | undefined,
): Promise<ReadonlySet<string>> {
  if (!provider.getPathIdSet) {
    const entries = await visiblePathIds(provider, leafId);
    const ids =
      entries?.map((entry) => entry.id) ??
      (await visibleHistory(provider, leafId)).map((message) => message.id);
    return new Set(ids);
  }
  const ids = await provider.getPathIdSet(leafId);
  if (![...ids].some(isOverlayRowId)) return ids;
  const hidden = await hiddenRowTest(provider);
  if (![...ids].some(hidden)) return ids;
  const leaf = leafId ?? (await visibleLatestLeafId(provider)) ?? undefined;
  const path = leaf === leafId ? ids : await provider.getPathIdSet(leaf);
  return new Set([...path].filter((id) => !hidden(id)));
}

// --- Internal helpers ---

/** The code that reads around overlay rows, loaded when a read first meets one. */
function repair(): Promise<typeof import("./overlay-rows-repair.js")> {
  return import("./overlay-rows-repair.js");
}

/** The path's rows without hidden ones; read again at the visible leaf when the default leaf was hidden. */
async function visibleRows<Row extends PathEntry | HistoryRowStat>(
  provider: SessionProvider,
  rows: Row[],
  leafId: string | undefined,
  read: (leafId?: string | null) => Promise<Row[]> | Row[],
): Promise<Row[]> {
  if (!rows.some((row) => isOverlayRowId(row.id))) return rows;
  const hidden = await hiddenRowTest(provider);
  if (!rows.some((row) => hidden(row.id))) return rows;
  let path = rows;
  if (leafId === undefined && hidden(rows.at(-1)?.id)) {
    const leaf = (await visibleLatestLeafId(provider)) ?? undefined;
    path = leaf === undefined ? [] : await read(leaf);
  }
  return path.filter((row) => !hidden(row.id));
}
