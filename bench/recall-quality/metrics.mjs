// Scoring: per question, the share of its evidence turns among the first k results (recall@k),
// whether any is among the first 10 (hit@10), and whether the search returned nothing at all.
export const KS = [5, 10, 20];

/** One search's scores. `ids` are the result ids in rank order. */
export function score(ids, evidence) {
  const found = (k) =>
    ids.slice(0, k).filter((id) => evidence.has(id)).length / evidence.size;
  return {
    recall: KS.map(found),
    hit10: ids.slice(0, 10).some((id) => evidence.has(id)) ? 1 : 0,
    empty: ids.length === 0 ? 1 : 0,
  };
}

/** Sums of scores by key, for means. */
export class Tally {
  constructor() {
    this.groups = new Map();
  }
  add(key, scores) {
    const group = this.groups.get(key) ?? {
      count: 0,
      recall: KS.map(() => 0),
      hit10: 0,
      empty: 0,
    };
    group.count++;
    scores.recall.forEach((value, k) => (group.recall[k] += value));
    group.hit10 += scores.hit10;
    group.empty += scores.empty;
    this.groups.set(key, group);
  }
  /**
   * Means (0–1) for `key`: `{ count, recall@5, recall@10, recall@20, hit@10, empty, hit@10 of
   * answered }`, the last among the searches that returned anything (`null` when none did).
   */
  mean(key) {
    const group = this.groups.get(key);
    if (!group) return null;
    const result = { count: group.count };
    KS.forEach(
      (k, index) => (result[`recall@${k}`] = group.recall[index] / group.count),
    );
    result["hit@10"] = group.hit10 / group.count;
    result.empty = group.empty / group.count;
    const answered = group.count - group.empty;
    result["hit@10 of answered"] = answered > 0 ? group.hit10 / answered : null;
    return result;
  }
}

/** Milliseconds at quantile `q` of `times`. */
export function percentile(times, q) {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

/**
 * The half of the questions a question belongs to: search is chosen and tuned on the "odd" half
 * and every figure is reported on the "even" half as well as on all, so a figure on the even
 * half was never looked at while tuning. A question id is read as a base-36 number (LongMemEval's
 * ids are hexadecimal, `gpt4_2f8be40d` read after its prefix, an abstention's `_abs` dropped):
 * its parity is its last digit's. A question without an id (REALTALK) goes by its 1-based
 * position in the data set.
 */
export function questionHalf(id, position) {
  if (typeof id === "string") {
    const digit = id.replace(/_abs$/, "").slice(-1).toLowerCase();
    const value = Number.parseInt(digit, 36);
    if (!Number.isNaN(value)) return value % 2 === 1 ? "odd" : "even";
  }
  return (position + 1) % 2 === 1 ? "odd" : "even";
}

/**
 * The halves a run reports (`ARBOR_RECALL_QUESTIONS`): `"all"` (default) reports all questions
 * and the even ones; `"odd"` or `"even"` asks only that half, for tuning on the odd ones.
 */
export function questionHalves(env = process.env.ARBOR_RECALL_QUESTIONS) {
  const chosen = env ?? "all";
  if (!["all", "odd", "even"].includes(chosen))
    throw new Error(
      `ARBOR_RECALL_QUESTIONS must be all, odd or even, got ${JSON.stringify(chosen)}`,
    );
  return chosen;
}
