/**
 * The rare path of tree/overlay-rows.ts: reading around stored overlay rows once a read has met
 * one. Loaded on that first meeting, so sessions that never hold such a row (nearly all) do not
 * carry this code.
 */
import {
  applyOverlaySpans,
  COMPACTION_PREFIX,
  isOverlayRowId,
  type HiddenRowTest,
} from "./apply-compactions.js";
import { messagesFromSpans } from "./path-history.js";
import { chooseRecentWindow } from "./recent-window.js";
import type { SessionProvider } from "../contracts/provider.js";
import type {
  RecentHistoryResult,
  SessionMessage,
} from "../contracts/types.js";

/**
 * Children with each hidden row replaced by its own visible children, every child in its own
 * place: siblings read oldest first, so a hidden row's child inserted after a sibling comes after
 * it, not where the hidden row was. The order is the session's insertion order (its export);
 * without an export, the children stand where the hidden row stood.
 */
export async function visibleBranches(
  base: SessionProvider,
  children: SessionMessage[],
  hidden: HiddenRowTest,
): Promise<SessionMessage[]> {
  const visible = await visibleChildren(base, children, hidden, new Set());
  if (!base.exportMessages) return visible;
  const order = new Map(
    (await base.exportMessages()).map((record, index) => [
      record.message.id,
      index,
    ]),
  );
  return visible
    .map((message, index) => ({ message, index }))
    .sort(
      (a, b) =>
        (order.get(a.message.id) ?? a.index) -
        (order.get(b.message.id) ?? b.index),
    )
    .map(({ message }) => message);
}

/** Children with hidden rows replaced by their own visible children, in the rows' places. */
async function visibleChildren(
  base: SessionProvider,
  children: SessionMessage[],
  hidden: HiddenRowTest,
  seen: Set<string>,
): Promise<SessionMessage[]> {
  if (!children.some((child) => hidden(child.id))) return children;
  const visible: SessionMessage[] = [];
  for (const child of children) {
    if (!hidden(child.id)) visible.push(child);
    else if (!seen.has(child.id)) {
      seen.add(child.id);
      visible.push(
        ...(await visibleChildren(
          base,
          await base.getBranches(child.id),
          hidden,
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
export async function visibleHistory(
  base: SessionProvider,
  leafId: string | undefined,
  history: SessionMessage[],
  latestLeafId: () => Promise<string | null>,
  hiddenTest: () => Promise<HiddenRowTest>,
): Promise<SessionMessage[]> {
  const raw = await rawPathIds(base, leafId);
  if (raw !== null && !raw.some(isOverlayRowId)) return history;
  const hidden = await hiddenTest();
  if (raw !== null && !raw.some(hidden)) return history;
  if (leafId === undefined && (raw === null || hidden(raw.at(-1)))) {
    const leaf = await latestLeafId();
    if (leaf === null) return [];
    return visibleHistory(
      base,
      leaf,
      await base.getHistory(leaf),
      latestLeafId,
      async () => hidden,
    );
  }
  if (raw === null || !base.getMessagesByIds)
    return withoutStrayRows(base, history);
  const ids = raw.filter((id) => !hidden(id));
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
export async function visibleRecent(
  base: SessionProvider,
  leafId: string | undefined,
  result: RecentHistoryResult,
  latestLeafId: () => Promise<string | null>,
  hiddenTest: () => Promise<HiddenRowTest>,
  budget: { maxContentBytes: number; minRecent: number | undefined },
): Promise<RecentHistoryResult> {
  if (!base.getHistoryRowStats || !base.getMessagesByIds)
    return {
      ...result,
      messages: await withoutStrayRows(base, result.messages),
    };
  let stats = await base.getHistoryRowStats(leafId);
  if (!stats.some((row) => isOverlayRowId(row.id))) return result;
  const hidden = await hiddenTest();
  if (!stats.some((row) => hidden(row.id))) return result;
  if (leafId === undefined && hidden(stats.at(-1)?.id)) {
    const leaf = await latestLeafId();
    stats = leaf === null ? [] : await base.getHistoryRowStats(leaf);
  }
  const rows = stats.filter((row) => !hidden(row.id));
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
 * Without the raw path: a `compaction_` message of one of this session's overlays is kept once
 * (a stored row carrying the id of a summary shown before it is the one dropped); any other
 * `compaction_` message is a row no overlay stands for, and stays.
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
    if (!isOverlayRowId(message.id) || !summaries.has(message.id)) return true;
    if (seen.has(message.id)) return false;
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
export async function newestVisibleLeaf(
  base: SessionProvider,
  hiddenLeafId: string,
  hidden: HiddenRowTest,
): Promise<string | null> {
  if (!base.exportMessages)
    return nearestVisibleAncestor(base, hiddenLeafId, hidden);
  const records = await base.exportMessages();
  const parentOf = new Map(
    records.map((record) => [record.message.id, record.parentId]),
  );
  const visibleParent = (id: string): string | null => {
    const seen = new Set<string>();
    let parent = parentOf.get(id) ?? null;
    while (hidden(parent) && !seen.has(parent)) {
      seen.add(parent);
      parent = parentOf.get(parent) ?? null;
    }
    return hidden(parent) ? null : parent;
  };
  const parents = new Set<string>();
  for (const { message } of records) {
    if (hidden(message.id)) continue;
    const parent = visibleParent(message.id);
    if (parent !== null) parents.add(parent);
  }
  for (let index = records.length - 1; index >= 0; index--) {
    const id = records[index]!.message.id;
    if (!hidden(id) && !parents.has(id)) return id;
  }
  return null;
}

/** The last visible message on the path to a hidden row (a summary standing for its overlay's end). */
async function nearestVisibleAncestor(
  base: SessionProvider,
  hiddenId: string,
  hidden: HiddenRowTest,
): Promise<string | null> {
  const raw = await rawPathIds(base, hiddenId);
  if (raw !== null) return raw.filter((id) => !hidden(id)).at(-1) ?? null;
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
    // A `compaction_` row no overlay stands for reads as any message.
    return id;
  }
  return null;
}
