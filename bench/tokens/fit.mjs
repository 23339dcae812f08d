// Fits MULTILINGUAL_TOKEN_WEIGHTS (src/utils/tokens/multilingual-estimate.ts) on the fit set only
// and prints them. Run after `npm run build`: node bench/tokens/fit.mjs
//
// Method: non-negative least squares on relative error, ((estimate - actual) / actual)², each
// category weighted equally whatever its number of samples. The reference is arbor-memory/tokenizer
// (gpt-tokenizer's o200k_base). Weights for scripts the corpus does not contain are fixed by hand
// (FIXED below).
import { countExactTokens } from "arbor-memory/tokenizer";
import {
  SCRIPT_FEATURE_NAMES,
  countScriptFeatures,
} from "../../dist/utils/tokens/_script-features.js";
import { CATEGORIES, loadSamples } from "./corpus.mjs";

// Not fitted: no Korean or Greek/Arabic/Hebrew/Indic/Thai text in the corpus. Spot checks with
// o200k give about 0.6 tokens per Hangul syllable and 0.35–0.5 per letter of the other scripts.
const FIXED = { hangul: 0.6, otherLetters: 0.4 };

const samples = loadSamples("fit").map((sample) => ({
  ...sample,
  features: countScriptFeatures(sample.text),
  actual: countExactTokens(sample.text),
}));
const names = SCRIPT_FEATURE_NAMES.filter((name) => !(name in FIXED));

const weights = { ...FIXED, ...fitNonNegative(samples, names) };
const rounded = Object.fromEntries(
  SCRIPT_FEATURE_NAMES.map((name) => [
    name,
    Math.round(weights[name] * 1000) / 1000,
  ]),
);

console.log(
  "Fitted on",
  samples.length,
  "fit-set samples. Paste into MULTILINGUAL_TOKEN_WEIGHTS:\n",
);
for (const name of SCRIPT_FEATURE_NAMES) {
  console.log(
    `  ${name}: ${rounded[name]},${name in FIXED ? " // fixed, not fitted" : ""}`,
  );
}
console.log(
  "\nFit-set error with these weights (not a measure of accuracy; see evaluate.mjs):",
);
for (const category of CATEGORIES) {
  const errors = samples
    .filter((sample) => sample.category === category)
    .map(
      (sample) =>
        (estimate(sample.features, rounded) - sample.actual) / sample.actual,
    );
  const mean = (values) =>
    (100 * values.reduce((sum, value) => sum + value, 0)) / values.length;
  console.log(
    `  ${category.padEnd(9)} mean |error| ${mean(errors.map(Math.abs)).toFixed(1).padStart(5)}%  bias ${mean(errors).toFixed(1).padStart(6)}%`,
  );
}

// --- Internal helpers ---

function estimate(features, weights) {
  let total = 0;
  for (const name of SCRIPT_FEATURE_NAMES)
    total += features[name] * weights[name];
  return Math.max(1, Math.ceil(total));
}

/** Minimises Σ w_i ((x_i · β + fixed_i - y_i) / y_i)² subject to β ≥ 0, by coordinate descent. */
function fitNonNegative(samples, names) {
  const perCategory = new Map();
  for (const sample of samples) {
    perCategory.set(
      sample.category,
      (perCategory.get(sample.category) ?? 0) + 1,
    );
  }
  const k = names.length;
  const gram = Array.from({ length: k }, () => new Float64Array(k));
  const rhs = new Float64Array(k);
  for (const sample of samples) {
    const weight = 1 / perCategory.get(sample.category) / sample.actual ** 2;
    const fixed = Object.entries(FIXED).reduce(
      (sum, [name, value]) => sum + sample.features[name] * value,
      0,
    );
    const target = sample.actual - fixed;
    const x = names.map((name) => sample.features[name]);
    for (let p = 0; p < k; p++) {
      rhs[p] += weight * x[p] * target;
      for (let q = 0; q < k; q++) gram[p][q] += weight * x[p] * x[q];
    }
  }
  const beta = new Float64Array(k);
  for (let iteration = 0; iteration < 100_000; iteration++) {
    let change = 0;
    for (let p = 0; p < k; p++) {
      if (gram[p][p] === 0) continue;
      let residual = rhs[p];
      for (let q = 0; q < k; q++) if (q !== p) residual -= gram[p][q] * beta[q];
      const next = Math.max(0, residual / gram[p][p]);
      change = Math.max(change, Math.abs(next - beta[p]));
      beta[p] = next;
    }
    if (change < 1e-12) break;
  }
  return Object.fromEntries(names.map((name, index) => [name, beta[index]]));
}
