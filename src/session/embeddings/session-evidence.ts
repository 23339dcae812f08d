/**
 * Evidence across sessions (docs/search.md#evidence-across-sessions and
 * docs/decisions/2026-12-07-session-lead-below-the-first-places.md): in a ranked search across
 * sessions, the earliest candidate of a session that matches the query in several turns takes a
 * share of its session's other matches, and may move up among the candidates below the first
 * places; the first places never move.
 *
 * A conversation that holds a fact usually opens with it and then discusses the subject at length
 * in its own words: the later turns match a question about it better than the turn holding the
 * fact, which falls out of the first page. The session's earliest candidate stands for that
 * opening without a read of the tree (the candidates carry their times).
 */
/** What the step reads of a candidate: its session, kind and time, as the ranking carries them. */
export interface EvidenceCandidate {
  sessionId?: string;
  kind?: string;
  createdAt?: string;
}

/** How many of the ranking's first candidates the step reorders, whatever the limit. */
export const SESSION_EVIDENCE_DEPTH = 100;

/**
 * The first places, which never move: the single-session questions' evidence is mostly there,
 * and a candidate that holds every word of the query there is never passed by a weaker one.
 */
export const KEPT_PLACES = 3;

/** The share a session's earliest candidate takes of its session's best other matches. */
export const LEAD_SHARE = 0.15;

/** How many of the session's other matches (its best ranked) the earliest candidate shares. */
export const SHARED_MATCHES = 2;

/** A candidate at rank `r` (0-based) scores `1 / (RANK_OFFSET + r)`, as in hybrid fusion. */
const RANK_OFFSET = 60;

/**
 * `items` (best first) with their first `SESSION_EVIDENCE_DEPTH` reordered, `of` reading each
 * item's session, kind and time: each keeps its rank's share
 * `1 / (60 + rank)`; a session's earliest message candidate (a unique earliest `createdAt` among
 * the session's message candidates) adds `LEAD_SHARE` times the shares of the session's best
 * `SHARED_MATCHES` other candidates. The first `KEPT_PLACES` keep their places; ties keep the
 * ranking's order; items past the depth follow unchanged. A session whose earliest time is shared
 * by two candidates, or whose candidates carry none, has no earliest candidate.
 */
export function rankWithSessionEvidence<T>(
  items: readonly T[],
  of: (item: T) => EvidenceCandidate,
): T[] {
  const candidates = items.slice(0, SESSION_EVIDENCE_DEPTH);
  const read = candidates.map(of);
  const ranksBySession = new Map<string, number[]>();
  read.forEach((hit, rank) => {
    if (hit.sessionId === undefined || hit.kind === "summary") return;
    const ranks = ranksBySession.get(hit.sessionId) ?? [];
    ranks.push(rank);
    ranksBySession.set(hit.sessionId, ranks);
  });
  const share = (rank: number) => 1 / (RANK_OFFSET + rank);
  const scores = candidates.map((_, rank) => share(rank));
  for (const ranks of ranksBySession.values()) {
    if (ranks.length < 2) continue;
    const lead = earliest(ranks.map((rank) => read[rank]!.createdAt));
    if (lead === null || ranks[lead]! < KEPT_PLACES) continue;
    const others = ranks.filter((_, at) => at !== lead);
    scores[ranks[lead]!]! +=
      LEAD_SHARE *
      others
        .slice(0, SHARED_MATCHES)
        .reduce((sum, rank) => sum + share(rank), 0);
  }
  const order = candidates
    .map((_, rank) => rank)
    .slice(KEPT_PLACES)
    .sort((a, b) => scores[b]! - scores[a]! || a - b);
  return [
    ...candidates.slice(0, KEPT_PLACES),
    ...order.map((rank) => candidates[rank]!),
    ...items.slice(SESSION_EVIDENCE_DEPTH),
  ];
}

// --- Internal helpers ---

/**
 * The index of the unique earliest time, or `null` when the earliest ties or none is known. A
 * candidate without a time (a match by meaning alone, before it is read) is passed over.
 */
function earliest(times: ReadonlyArray<string | undefined>): number | null {
  let best: number | null = null;
  let bestTime = Infinity;
  let tied = false;
  for (const [at, time] of times.entries()) {
    const value = time === undefined ? Number.NaN : Date.parse(time);
    if (Number.isNaN(value)) continue;
    if (value < bestTime) {
      best = at;
      bestTime = value;
      tied = false;
    } else if (value === bestTime) tied = true;
  }
  return tied ? null : best;
}
