/**
 * The turns around a search hit (`context: n`, docs/search.md#context-around-a-hit): up to `n`
 * before it on its path, read leaf → root with the windowed history reads (`session.history()`
 * with `newestFirst`: the path's ids, then only the rows returned), and up to `n` after it,
 * followed child by child: the child on the active branch when there is one, else the newest.
 * A hit on "the event was great" then comes with the turn that names the event.
 */
import type { SessionTree } from "../state/session-tree.js";
import type { SessionMessage } from "../contracts/types.js";
import { searchableText } from "../messages/message-codec.js";
import { invalidArgument } from "../errors/index.js";
import { streamHistoryBatches } from "../facade/session-history.js";
import type { ContextTurn, HitContext } from "./types.js";

/** Most neighbours on each side of a hit. */
export const MAX_HIT_CONTEXT = 10;
/** Most characters of a neighbour's text. */
export const CONTEXT_TEXT_CHARS = 400;

/** The `context` option checked: 0 when absent, `INVALID_ARGUMENT` unless an integer 0–10. */
export function checkHitContext(context: unknown): number {
  if (context === undefined) return 0;
  if (
    typeof context !== "number" ||
    !Number.isInteger(context) ||
    context < 0 ||
    context > MAX_HIT_CONTEXT
  )
    throw invalidArgument(
      `search: context must be an integer from 0 to ${MAX_HIT_CONTEXT}, got ${JSON.stringify(context)}`,
    );
  return context;
}

/**
 * The neighbours of each hit of one session, in the hits' order; a hit that is not a stored
 * message (an overlay summary) or is gone gets empty lists.
 */
export async function hitNeighbours(
  tree: SessionTree,
  hits: ReadonlyArray<{ id: string; kind?: string }>,
  count: number,
): Promise<HitContext[]> {
  const active = await tree.pathIdSet();
  const out: HitContext[] = [];
  for (const hit of hits) {
    if (hit.kind === "summary") out.push({ before: [], after: [] });
    else
      out.push({
        before: await before(tree, hit.id, count),
        after: await after(tree, hit.id, count, active),
      });
  }
  return out;
}

/** A message as a neighbour: id, role, time when stored, text cut to the budget. */
export function contextTurn(message: SessionMessage): ContextTurn {
  const text = searchableText(message);
  const createdAt =
    message.createdAt instanceof Date &&
    !Number.isNaN(message.createdAt.getTime())
      ? message.createdAt.toISOString()
      : undefined;
  return {
    id: message.id,
    role: message.role,
    ...(createdAt !== undefined ? { createdAt } : {}),
    text: cut(text, CONTEXT_TEXT_CHARS),
  };
}

/** Text cut to `chars` characters at a word boundary when one is near, `…` marking the cut. */
export function cut(text: string, chars: number): string {
  const flat = text.replace(/\s+/gu, " ").trim();
  if (flat.length <= chars) return flat;
  const head = flat.slice(0, chars - 1);
  const space = head.lastIndexOf(" ");
  return `${space > chars * 0.6 ? head.slice(0, space) : head}…`;
}

// --- Internal helpers ---

async function before(
  tree: SessionTree,
  id: string,
  count: number,
): Promise<ContextTurn[]> {
  const batches = streamHistoryBatches(async () => ({ tree }), {
    leafId: id,
    newestFirst: true,
    batchSize: count + 1,
  });
  for await (const batch of batches) {
    // The first window, leaf first: the hit, then its ancestors. Later windows are never read.
    if (batch[0]?.id !== id) return [];
    return batch.slice(1).reverse().map(contextTurn);
  }
  return [];
}

async function after(
  tree: SessionTree,
  id: string,
  count: number,
  active: ReadonlySet<string>,
): Promise<ContextTurn[]> {
  const turns: ContextTurn[] = [];
  let at = id;
  while (turns.length < count) {
    const children = await tree.branches(at);
    const next =
      children.find((child) => active.has(child.id)) ?? children.at(-1);
    if (!next) break;
    turns.push(contextTurn(next));
    at = next.id;
  }
  return turns;
}
