/**
 * Reciprocal rank fusion (Cormack et al., 2009): each ranking adds 1 / (K + rank) to an item,
 * so an item near the top of both rankings wins, and neither ranking's raw scores (BM25 rank,
 * cosine) need to be comparable.
 */
export const RRF_K = 60;

/** One ranked list: keys in rank order, best first. */
export type Ranking = readonly string[];

/** Fused scores by key, over any number of rankings. */
export function reciprocalRankFusion(
  rankings: readonly Ranking[],
): Map<string, number> {
  const scores = new Map<string, number>();
  for (const ranking of rankings) {
    ranking.forEach((key, index) => {
      scores.set(key, (scores.get(key) ?? 0) + 1 / (RRF_K + index + 1));
    });
  }
  return scores;
}
