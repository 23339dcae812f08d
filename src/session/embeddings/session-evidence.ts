/**
 * Evidence that spans turns, across sessions (docs/search.md#evidence-across-sessions): a step
 * of the ranked text search of `manager.search()` (search-pipeline.ts) between the backend's
 * turn ranking and what is fused or returned.
 *
 * A turn ranking scores each turn alone. A conversation's opening turn says what it is about and
 * the situation it starts from ("I'm planning a trip to Maui; by the way I booked a resort at
 * $300 a night"), and the turns after it discuss that subject at length in its own words, so
 * they match a question about it more than the opening does, and the opening, which holds the
 * fact asked for, falls out of the first places. So an opening turn that matches the question
 * takes a share of its session's matches: its score is its own rank's share, `1 / (K + rank)`
 * (ranks, since every backend scores differently), plus `OPENING_SHARE` times the shares of its
 * session's best `SESSION_TURNS` matches. An opening that matches nothing is not added.
 *
 * Only the first `OPENING_DEPTH` candidates are read and reordered, among themselves, whatever
 * the `limit`; the rest follow unchanged, so a ranking is one order for every limit (the
 * stable-ranking property).
 */

/** Rank offset of a turn's share, `1 / (RANK_K + rank)`: the usual reciprocal-rank constant. */
export const RANK_K = 60;

/** How much of its session's best matches an opening turn adds to its own share. */
export const OPENING_SHARE = 0.05;

/** How many of the session's best matches (the opening itself may be one) add to it. */
export const SESSION_TURNS = 2;

/**
 * How many of the text ranking's first candidates the step reads. A share of at most
 * `OPENING_SHARE * SESSION_TURNS / (RANK_K + 1)` lifts an opening past about 45 places, so an
 * opening further down never reaches the first ten; the depth bounds the sessions looked up.
 */
export const OPENING_DEPTH = 100;

/** The sessions whose opening turns the step needs: those of the first candidates. */
export function evidenceSessions<T>(
  ranked: readonly T[],
  sessionOf: (item: T) => string,
): string[] {
  return [...new Set(ranked.slice(0, OPENING_DEPTH).map(sessionOf))];
}

/**
 * The ranking reordered (see the module comment). `isOpening` tells a session's opening turn.
 * Stable: ties keep the given order.
 */
export function rankWithSessionEvidence<T>(
  ranked: readonly T[],
  sessionOf: (item: T) => string,
  isOpening: (item: T) => boolean,
): T[] {
  const head = ranked.slice(0, OPENING_DEPTH);
  const share = (rank: number) => 1 / (RANK_K + rank + 1);
  const best = new Map<string, number>();
  const counted = new Map<string, number>();
  head.forEach((item, rank) => {
    const session = sessionOf(item);
    const taken = counted.get(session) ?? 0;
    if (taken >= SESSION_TURNS) return;
    counted.set(session, taken + 1);
    best.set(session, (best.get(session) ?? 0) + share(rank));
  });
  const scored = head.map((item, rank) => ({
    item,
    rank,
    score:
      share(rank) +
      (isOpening(item) ? OPENING_SHARE * best.get(sessionOf(item))! : 0),
  }));
  scored.sort((a, b) => b.score - a.score || a.rank - b.rank);
  return [...scored.map((entry) => entry.item), ...ranked.slice(head.length)];
}
