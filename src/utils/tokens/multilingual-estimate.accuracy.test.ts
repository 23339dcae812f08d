// Held-out accuracy of the multilingual estimate against a real tokenizer (gpt-tokenizer,
// o200k_base), on the corpus of bench/tokens (docs/token-estimation.md). No mocks.
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { describe, expect, it } from "vitest";
import { CATEGORIES, loadSamples } from "../../../bench/tokens/corpus.mjs";
import { estimateStringTokensMultilingual } from "./multilingual-estimate.js";

const TARGET_MEAN_ABSOLUTE_ERROR = 0.15;
const heldOut = loadSamples("heldout");
const fit = loadSamples("fit");

describe("estimateStringTokensMultilingual on the held-out corpus", () => {
  it("never saw a held-out text while fitting", () => {
    const fitTexts = new Set(fit.map((sample) => sample.text.trim()));
    const leaked = heldOut.filter((sample) => fitTexts.has(sample.text.trim()));
    expect(leaked).toEqual([]);
  });

  it.each(CATEGORIES)(
    "stays within 15%% mean absolute error on %s",
    (category) => {
      const samples = heldOut.filter((sample) => sample.category === category);
      expect(samples.length).toBeGreaterThanOrEqual(5);
      const errors = samples.map((sample) => {
        const actual = countTokens(sample.text, {
          disallowedSpecial: new Set(),
        });
        return (
          Math.abs(estimateStringTokensMultilingual(sample.text) - actual) /
          actual
        );
      });
      const meanError =
        errors.reduce((sum, error) => sum + error, 0) / errors.length;
      expect(meanError).toBeLessThanOrEqual(TARGET_MEAN_ABSOLUTE_ERROR);
    },
  );
});
