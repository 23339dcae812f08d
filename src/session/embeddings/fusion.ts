/**
 * Fusion of the text and the semantic ranking in hybrid search (docs/search.md#how-hybrid-fuses):
 * reciprocal rank fusion (Cormack et al., 2009), each ranking adding `weight / (K + rank)` to an
 * item, with the semantic ranking's weight set per query by how far it agrees with the text
 * ranking beyond chance. Vectors that know nothing about the query (random, or a model that does
 * not cover its words) put the text matches nowhere in particular in their order; vectors that
 * do put them near their top. So an uninformative embedder leaves the text ranking as it is,
 * its own finds listed after every text match, and an informative one reorders and adds to it.
 */
export const RRF_K = 60;

/** How many of the semantic ranking's first items the agreement is measured on. */
export const AGREEMENT_PROBE = 20;

/**
 * The agreement (text matches among the semantic ranking's first `AGREEMENT_PROBE` items, less
 * how many chance would put there) at which the vectors start to count, and at which they count
 * fully. Random vectors put a chance number there give or take 2, and in the recall benchmark's
 * 1,068 rankings by random vectors the agreement never passed 4.1; half of the hashed
 * stand-in's passed 9.6, of GloVe word vectors' 6.8.
 */
export const AGREEMENT_FLOOR = 4;
export const AGREEMENT_FULL = 12;

/**
 * The semantic ranking's weight, against the text ranking's 1, once it counts fully. Chosen on
 * the odd questions of the recall benchmark (docs/search.md#recall-quality): with the hashed
 * stand-in and GloVe word vectors, which agree with the words but rank worse than they do, any
 * weight above about 0.1 cost recall; 0.05 lets the vectors reorder near ties of the text
 * ranking and decide its order where the words match nothing.
 */
export const SEMANTIC_WEIGHT = 0.05;

/** One ranked list: keys in rank order, best first. */
export type Ranking = readonly string[];

/** The constants of `fuseRankings`, for measuring other choices. */
export interface FusionSettings {
  k: number;
  probe: number;
  floor: number;
  full: number;
  weight: number;
}

export const FUSION_SETTINGS: Readonly<FusionSettings> = {
  k: RRF_K,
  probe: AGREEMENT_PROBE,
  floor: AGREEMENT_FLOOR,
  full: AGREEMENT_FULL,
  weight: SEMANTIC_WEIGHT,
};

/**
 * How far the semantic ranking agrees with the text ranking beyond chance: the text matches
 * among its first `probe` items, less the number expected there if the text matches it holds
 * were spread evenly over its whole length. Needs no count of the store's items, so it means the
 * same for a session of ten messages and a history of a million: a semantic ranking no longer
 * than `probe` scores 0 (it cannot show an order), as does one that holds no text match.
 */
export function semanticAgreement(
  text: Ranking,
  semantic: Ranking,
  probe = AGREEMENT_PROBE,
): number {
  if (semantic.length <= probe || text.length === 0) return 0;
  const matched = new Set(text);
  let inProbe = 0;
  let inAll = 0;
  semantic.forEach((key, index) => {
    if (!matched.has(key)) return;
    inAll++;
    if (index < probe) inProbe++;
  });
  return inProbe - (inAll * probe) / semantic.length;
}

/** The semantic ranking's weight for an agreement (see `AGREEMENT_FLOOR`). */
export function semanticWeight(
  agreement: number,
  settings: Readonly<FusionSettings> = FUSION_SETTINGS,
): number {
  const share = (agreement - settings.floor) / (settings.full - settings.floor);
  return settings.weight * Math.min(1, Math.max(0, share));
}

/**
 * The hybrid order: keys with their fused scores, best first. Each key scores
 * `1 / (K + text rank) + w / (K + semantic rank)` with `w = semanticWeight(agreement)`; ties
 * (every semantic-only key when `w` is 0) go by the semantic rank. With no text match at all the
 * semantic ranking is the whole evidence and counts fully.
 */
export function fuseRankings(
  text: Ranking,
  semantic: Ranking,
  settings: Readonly<FusionSettings> = FUSION_SETTINGS,
): Array<[string, number]> {
  const weight =
    text.length === 0
      ? 1
      : semanticWeight(
          semanticAgreement(text, semantic, settings.probe),
          settings,
        );
  const scores = new Map<string, { fused: number; semantic: number }>();
  text.forEach((key, index) => {
    scores.set(key, { fused: 1 / (settings.k + index + 1), semantic: 0 });
  });
  semantic.forEach((key, index) => {
    const share = 1 / (settings.k + index + 1);
    const entry = scores.get(key) ?? { fused: 0, semantic: 0 };
    entry.fused += weight * share;
    entry.semantic = share;
    scores.set(key, entry);
  });
  return [...scores.entries()]
    .sort(([, a], [, b]) => b.fused - a.fused || b.semantic - a.semantic)
    .map(([key, { fused, semantic: alone }]) => [
      key,
      fused > 0 ? fused : alone * SEMANTIC_ONLY_SHARE,
    ]);
}

// --- Internal helpers ---

/**
 * A semantic-only key's reported score when the vectors did not count: its semantic share scaled
 * far below any text match's, so `score` stays positive and in result order.
 */
const SEMANTIC_ONLY_SHARE = 1e-3;
