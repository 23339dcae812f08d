/**
 * Search hits as the model reads them (`session_search`, the `search_context` of
 * `withSearchableHistory()`; docs/search.md#what-the-model-sees): one compact block per hit with
 * its session's name, its time, its role, a snippet and the turns around it, best first, cut to
 * a token budget so a tool result never floods the context.
 */
import { estimateStringTokens } from "../tokens/estimate-tokens.js";
import { cut } from "../embeddings/hit-neighbours.js";
import { snippetOf } from "../embeddings/snippet.js";
import type { ContextTurn, SearchHit } from "../embeddings/types.js";

/** Tokens a rendered result may take, by the heuristic of docs/behavior/overlays.md. */
export const MODEL_SEARCH_TOKEN_BUDGET = 2000;
/** Characters of a hit's text shown. */
const HIT_TEXT_CHARS = 300;
/** Characters of a neighbour's text shown. */
const NEIGHBOUR_TEXT_CHARS = 160;

/**
 * The hits rendered within `budget` tokens, `null` when there are none. Hits that do not fit are
 * counted on a last line; the first hit is always shown, its neighbours dropped if need be.
 */
export function renderSearchHits(
  hits: readonly SearchHit[],
  query: string,
  budget = MODEL_SEARCH_TOKEN_BUDGET,
): string | null {
  if (hits.length === 0) return null;
  const blocks: string[] = [];
  let used = 0;
  for (const [index, hit] of hits.entries()) {
    let block = renderHit(index + 1, hit, query, true);
    let tokens = estimateStringTokens(block) + 1;
    if (used + tokens > budget && blocks.length === 0) {
      block = renderHit(index + 1, hit, query, false);
      tokens = estimateStringTokens(block) + 1;
    }
    if (used + tokens > budget && blocks.length > 0) {
      const left = hits.length - blocks.length;
      blocks.push(
        `(${left} more ${left === 1 ? "result" : "results"} not shown; narrow the query or add since/until)`,
      );
      break;
    }
    blocks.push(block);
    used += tokens;
  }
  return blocks.join("\n\n");
}

/** `2023-05-07 14:03 UTC` from an ISO-8601 UTC instant; `time unknown` without one. */
export function shortTime(iso: string | undefined): string {
  if (iso === undefined) return "time unknown";
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/u.exec(iso);
  return match ? `${match[1]} ${match[2]} UTC` : iso;
}

// --- Internal helpers ---

function renderHit(
  rank: number,
  hit: SearchHit,
  query: string,
  withContext: boolean,
): string {
  const where = [
    `#${rank}`,
    ...(hit.sessionName !== undefined
      ? [`session "${hit.sessionName}"`]
      : hit.sessionId !== undefined
        ? [`session ${hit.sessionId}`]
        : []),
    shortTime(hit.createdAt),
    hit.role,
    `id ${hit.id}`,
  ].join(" · ");
  const text = cut(
    hit.snippet ?? snippetOf(hit.content, query),
    HIT_TEXT_CHARS,
  );
  const lines = [where];
  if (withContext)
    for (const turn of hit.context?.before ?? []) lines.push(neighbour(turn));
  lines.push(`  > ${text}`);
  if (withContext)
    for (const turn of hit.context?.after ?? []) lines.push(neighbour(turn));
  return lines.join("\n");
}

function neighbour(turn: ContextTurn): string {
  const time =
    turn.createdAt !== undefined ? ` (${shortTime(turn.createdAt)})` : "";
  return `    ${turn.role}${time}: ${cut(turn.text, NEIGHBOUR_TEXT_CHARS)}`;
}
