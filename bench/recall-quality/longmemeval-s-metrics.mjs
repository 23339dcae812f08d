// LongMemEval's retrieval measures, written here from their definition in its repository
// (github.com/xiaowu0162/LongMemEval, src/retrieval/eval_utils.py): for a ranking and the set of
// relevant items, recall_any@k (is any relevant item in the first k), recall_all@k (are all of
// them), and NDCG@k with binary relevance, DCG = rel₁ + Σ_{i≥2} relᵢ / log₂(i) as theirs is, the
// ideal ranking putting every relevant item first. recall@k, the share of the relevant items in
// the first k, is added: it is the pooled run's measure (metrics.mjs), for comparison.
export const MEASURES = [
  "recall_any@5",
  "recall_all@5",
  "recall_any@10",
  "recall_all@10",
  "recall@10",
  "ndcg@10",
];

/** The scores of one ranking (ids, best first) against the relevant ids. */
export function retrievalScores(ranking, relevant) {
  const scores = {};
  for (const k of [5, 10]) {
    const found = ranking.slice(0, k).filter((id) => relevant.has(id)).length;
    scores[`recall_any@${k}`] = found > 0 ? 1 : 0;
    scores[`recall_all@${k}`] = found === relevant.size ? 1 : 0;
    if (k === 10) scores["recall@10"] = found / relevant.size;
  }
  scores["ndcg@10"] = ndcg(ranking, relevant, 10);
  return scores;
}

/**
 * A turn ranking scored at session level the way LongMemEval's script scores a turn retriever
 * (`evaluate_retrieval_turn2session`): each turn stands for its session, but only an evidence turn
 * stands for an evidence session (the script renames the other turns of an answer session, so
 * they find nothing); the first k becomes the first turns that name k distinct sessions; NDCG
 * counts every turn in that window, against an ideal of the evidence turns first.
 */
export function sessionScoresOfTurns(
  turnIds,
  evidenceTurns,
  evidenceSessions,
  sessionOf,
) {
  const named = turnIds.map((id) =>
    evidenceTurns.has(id) ? sessionOf(id) : `~${sessionOf(id)}`,
  );
  const scores = {};
  for (const k of [5, 10]) {
    const window = named.slice(0, windowOf(named, k));
    const found = [...evidenceSessions].filter((id) =>
      window.includes(id),
    ).length;
    scores[`recall_any@${k}`] = found > 0 ? 1 : 0;
    scores[`recall_all@${k}`] = found === evidenceSessions.size ? 1 : 0;
    if (k === 10) {
      scores["recall@10"] = found / evidenceSessions.size;
      const ideal = dcg(
        Array.from(
          { length: Math.min(window.length, evidenceTurns.size) },
          () => 1,
        ),
      );
      scores["ndcg@10"] =
        ideal === 0
          ? 0
          : dcg(window.map((id) => (evidenceSessions.has(id) ? 1 : 0))) / ideal;
    }
  }
  return scores;
}

/** A session-id ranking with each id at its first place (`sessionOf` maps a turn id to its session). */
export function sessionRanking(turnIds, sessionOf) {
  return [...new Set(turnIds.map(sessionOf))];
}

/**
 * The half of the questions a question belongs to, by its id read as a base-36 number (ids are
 * hexadecimal, `gpt4_2f8be40d` read after its prefix, an abstention's `_abs` dropped): tuning
 * looks at the odd half, figures are reported on the even half as well as on all.
 */
export function questionHalf(id) {
  const digit = id.replace(/_abs$/, "").slice(-1).toLowerCase();
  return Number.parseInt(digit, 36) % 2 === 1 ? "odd" : "even";
}

/** Sums of scores by key, for means. */
export class RetrievalTally {
  constructor() {
    this.groups = new Map();
  }
  add(key, scores) {
    const group = this.groups.get(key) ?? { count: 0, sums: {} };
    group.count++;
    for (const [measure, value] of Object.entries(scores))
      group.sums[measure] = (group.sums[measure] ?? 0) + value;
    this.groups.set(key, group);
  }
  /** `{ count, <measure>: mean 0–1 }` for `key`, or `null` when nothing was added under it. */
  mean(key) {
    const group = this.groups.get(key);
    if (!group) return null;
    const result = { count: group.count };
    for (const [measure, sum] of Object.entries(group.sums))
      result[measure] = sum / group.count;
    return result;
  }
}

// --- Internal helpers ---

/** How many of the first `named` ids it takes to name `k` distinct ones (all of them if fewer). */
function windowOf(named, k) {
  const seen = new Set();
  for (const [at, id] of named.entries()) {
    seen.add(id);
    if (seen.size === k) return at + 1;
  }
  return named.length;
}

function dcg(relevances) {
  return relevances.reduce(
    (sum, relevance, at) =>
      sum + (at === 0 ? relevance : relevance / Math.log2(at + 1)),
    0,
  );
}

function ndcg(ranking, relevant, k) {
  const ideal = dcg(
    Array.from({ length: Math.min(k, relevant.size) }, () => 1),
  );
  if (ideal === 0) return 0;
  return (
    dcg(ranking.slice(0, k).map((id) => (relevant.has(id) ? 1 : 0))) / ideal
  );
}
