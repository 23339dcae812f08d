/**
 * Evidence across sessions (docs/search.md#evidence-across-sessions and
 * docs/decisions/2026-12-07-session-lead-below-the-first-places.md): in a ranked search across
 * sessions, the opening turn of a session that matches the query in several turns takes a share
 * of its session's other matches, and may move up among the candidates below the first places;
 * the first places never move.
 *
 * A conversation that holds a fact usually opens with it and then discusses the subject at length
 * in its own words: the later turns match a question about it better than the turn holding the
 * fact, which falls out of the first page. Which candidates open their sessions (have no parent)
 * is one read of the store per search, of the candidates that could take the share.
 *
 * A question about the user ("how many bikes do I own?") is answered by the user's own turns: the
 * assistant's replies restate its subject at length in the question's words and crowd the user's
 * statement out. Unless the query addresses the assistant ("what did you recommend?", "remind me
 * …"), a user turn's rank share counts `USER_TURN_WEIGHT` times
 * (docs/decisions/2026-12-08-user-turns-first-below-the-first-places.md).
 */
import type { MessageRef } from "../contracts/registry.js";

/** What the step reads of a candidate: its id, session, kind and role, as the ranking carries them. */
export interface EvidenceCandidate {
  id: string;
  sessionId?: string;
  kind?: string;
  /** The message's role, when the ranking carries it (a text hit does). */
  role?: string;
}

/** Which of the messages have no parent (`SessionRegistry.openings`). */
export type ReadOpenings = (
  messages: MessageRef[],
) => Promise<Iterable<MessageRef>> | Iterable<MessageRef>;

/** How many of the ranking's first candidates the step reorders, whatever the limit. */
export const SESSION_EVIDENCE_DEPTH = 200;

/**
 * The first places, which never move: the single-session questions' evidence is mostly there,
 * and a candidate that holds every word of the query there is never passed by a weaker one.
 */
export const KEPT_PLACES = 3;

/** The share a session's opening takes of its session's best other matches. */
export const LEAD_SHARE = 0.2;

/** How many of the session's other matches (its best ranked) the opening shares. */
export const SHARED_MATCHES = 2;

/** How much a user turn's rank share counts when the query does not address the assistant. */
export const USER_TURN_WEIGHT = 1.5;

/**
 * True for a query that addresses the assistant ("what did you recommend?") or asks to be
 * reminded ("remind me of the restaurant": what was said, often by the assistant, as keywords
 * keep it): its answer may be the assistant's own turn.
 */
export function addressesAssistant(query: string): boolean {
  return /\b(?:you|your|yours|yourself|remind)\b/i.test(query);
}

/** A candidate at rank `r` (0-based) scores `1 / (RANK_OFFSET + r)`, as in hybrid fusion. */
const RANK_OFFSET = 60;

/**
 * `items` (best first) with their first `SESSION_EVIDENCE_DEPTH` reordered, `of` reading each
 * item's id, session, kind and role: each keeps its rank's share `1 / (60 + rank)`, a user turn's
 * `USER_TURN_WEIGHT` times unless `query` addresses the assistant; a message candidate
 * that opens its session (no parent, as `openings` reads) adds `LEAD_SHARE` times the shares of
 * its session's best `SHARED_MATCHES` other candidates. The first `KEPT_PLACES` keep their places;
 * ties keep the ranking's order; items past the depth follow unchanged. `openings` is read once,
 * for the message candidates below the first places whose session has another candidate, and not
 * at all when there are none.
 */
export async function rankWithSessionEvidence<T>(
  items: readonly T[],
  of: (item: T) => EvidenceCandidate,
  openings: ReadOpenings,
  query: string,
): Promise<T[]> {
  const candidates = items.slice(0, SESSION_EVIDENCE_DEPTH);
  const read = candidates.map(of);
  const userWeight = addressesAssistant(query) ? 1 : USER_TURN_WEIGHT;
  const ranksBySession = new Map<string, number[]>();
  read.forEach((hit, rank) => {
    if (hit.sessionId === undefined || hit.kind === "summary") return;
    const ranks = ranksBySession.get(hit.sessionId) ?? [];
    ranks.push(rank);
    ranksBySession.set(hit.sessionId, ranks);
  });
  const asked = [...ranksBySession.values()]
    .filter((ranks) => ranks.length > 1)
    .flatMap((ranks) => ranks.filter((rank) => rank >= KEPT_PLACES));
  const share = (rank: number) => 1 / (RANK_OFFSET + rank);
  const scores = read.map(
    (hit, rank) =>
      share(rank) *
      (hit.role === "user" && hit.kind !== "summary" ? userWeight : 1),
  );
  const key = (sessionId: string, id: string) =>
    JSON.stringify([sessionId, id]);
  const opening = new Set<string>();
  if (asked.length > 0)
    for (const { sessionId, id } of await openings(
      asked.map((rank) => ({
        sessionId: read[rank]!.sessionId!,
        id: read[rank]!.id,
      })),
    ))
      opening.add(key(sessionId, id));
  for (const rank of asked) {
    const { sessionId, id } = read[rank]!;
    if (!opening.has(key(sessionId!, id))) continue;
    scores[rank]! +=
      LEAD_SHARE *
      ranksBySession
        .get(sessionId!)!
        .filter((other) => other !== rank)
        .slice(0, SHARED_MATCHES)
        .reduce((sum, other) => sum + share(other), 0);
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
