// `npm run bench:tokens`: error of Arbor's token estimates against a real tokenizer (gpt-tokenizer
// o200k_base, through arbor-memory/tokenizer), per category, on the held-out set and, separately, the fit
// set.
// Imports the built package: run `npm run build` first. `--markdown` prints the tables as Markdown.
//
// Error per sample = (estimate - actual) / actual. "mean |err|" is the mean absolute percentage
// error over the samples of a category, "bias" the mean signed error (+ = overestimate).
import { countExactTokens } from "arbor-memory/tokenizer";
import {
  estimateStringTokens,
  estimateStringTokensMultilingual,
} from "arbor-memory/utils";
import { loadSamples } from "./corpus.mjs";

const SEEDED = new Set(["english", "russian", "japanese", "polish"]);

export const ESTIMATORS = {
  default: estimateStringTokens,
  multilingual: estimateStringTokensMultilingual,
};

/** Error of every estimator per group of samples (by default, per category). */
export function measure(samples, groupOf = (sample) => sample.category) {
  const groups = new Map();
  for (const sample of samples) {
    const key = groupOf(sample);
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(sample);
  }
  return [...groups].map(([group, inGroup]) => {
    const actual = inGroup.map((sample) => countExactTokens(sample.text));
    const row = {
      group,
      samples: inGroup.length,
      characters: inGroup.reduce((sum, sample) => sum + sample.text.length, 0),
      tokens: actual.reduce((sum, value) => sum + value, 0),
    };
    for (const [name, estimate] of Object.entries(ESTIMATORS)) {
      const errors = inGroup.map(
        (sample, index) =>
          (estimate(sample.text) - actual[index]) / actual[index],
      );
      row[name] = {
        meanAbsolute: mean(errors.map(Math.abs)),
        bias: mean(errors),
        worst: Math.max(...errors.map(Math.abs)),
      };
    }
    return row;
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const render = process.argv.includes("--markdown")
    ? renderMarkdown
    : renderText;
  const heldOut = loadSamples("heldout");
  console.log("\nHeld-out set (never used for fitting)\n");
  console.log(render(measure(heldOut)));
  console.log(
    "\nHeld-out set by source: seed documents (docs with code blocks) and written texts\n",
  );
  const bySource = heldOut.filter((sample) => SEEDED.has(sample.category));
  console.log(
    render(
      measure(
        bySource,
        (sample) =>
          `${sample.category} (${sample.file.startsWith("seed-") ? "seed" : "written"})`,
      ),
    ),
  );
  console.log(
    "\nFit set (the constants were fitted on these texts: not a measure of accuracy)\n",
  );
  console.log(render(measure(loadSamples("fit"))));
}

// --- Internal helpers ---

function mean(values) {
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

function percent(value, signed = false) {
  return `${signed && value >= 0 ? "+" : ""}${(100 * value).toFixed(1)}%`;
}

function renderText(rows) {
  const header = `${"category".padEnd(18)} ${"samples".padStart(7)} ${"tokens".padStart(7)}  | default: mean |err|    bias   worst | multilingual: mean |err|    bias   worst`;
  const lines = rows.map(
    (row) =>
      `${row.group.padEnd(18)} ${String(row.samples).padStart(7)} ${String(row.tokens).padStart(7)}  | ${percent(row.default.meanAbsolute).padStart(19)} ${percent(row.default.bias, true).padStart(7)} ${percent(row.default.worst).padStart(7)} | ${percent(row.multilingual.meanAbsolute).padStart(24)} ${percent(row.multilingual.bias, true).padStart(7)} ${percent(row.multilingual.worst).padStart(7)}`,
  );
  return [header, "-".repeat(header.length), ...lines].join("\n");
}

function renderMarkdown(rows) {
  const lines = [
    "| Category | Samples | o200k tokens | Default: mean \\|error\\| | Default: bias | Multilingual: mean \\|error\\| | Multilingual: bias | Multilingual: worst sample |",
    "|---|--:|--:|--:|--:|--:|--:|--:|",
  ];
  for (const row of rows) {
    lines.push(
      `| ${row.group} | ${row.samples} | ${row.tokens} | ${percent(row.default.meanAbsolute)} | ${percent(row.default.bias, true)} | **${percent(row.multilingual.meanAbsolute)}** | ${percent(row.multilingual.bias, true)} | ${percent(row.multilingual.worst)} |`,
    );
  }
  return lines.join("\n");
}
