import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import * as helpers from "./compaction-helpers.js";
import * as utils from "./index.js";
// Type exports of docs/behavior/runtime.md (checked by tsc).
import type {
  CompactOptions,
  CompactResult,
  CompactTokenCounter,
  HistoryFilter,
  TruncateOptions,
} from "./index.js";

export type SpecTypes = [
  CompactOptions,
  CompactResult,
  CompactTokenCounter,
  HistoryFilter,
  TruncateOptions,
];

// docs/behavior/runtime.md, `arbor-memory/utils` row.
const DOCUMENTED_NAMES = [
  "assembleContext",
  "createCompactFunction",
  "truncateOlderMessages",
  "estimateMessageTokens",
  "estimateStringTokens",
  "COMPACTION_PREFIX",
  "isCompactionMessage",
  "sanitizeToolPairs",
  "alignBoundaryForward",
  "alignBoundaryBackward",
  "findTailCutByTokens",
  "computeSummaryBudget",
  "buildSummaryPrompt",
  "CHARS_PER_TOKEN",
  "WORDS_TOKEN_MULTIPLIER",
  "TOKENS_PER_MESSAGE",
  "truncateToolOutput",
  "enforceRowSizeLimit",
  "ROW_MAX_BYTES",
  "applyCompactions",
  "keepLastMessages",
  "keepWithinTokenBudget",
  "composeHistoryFilters",
];
// Arbor additions that live on `arbor-memory/utils` only, not on the compaction-helpers path.
const UTILS_ONLY = [
  "assembleContext",
  "keepLastMessages",
  "keepWithinTokenBudget",
  "composeHistoryFilters",
];

describe("arbor-memory/utils", () => {
  it("exports every name docs/behavior/runtime.md lists", () => {
    for (const name of DOCUMENTED_NAMES)
      expect(utils, name).toHaveProperty(name);
  });

  it("exports the compaction helpers from arbor-memory/utils/compaction-helpers as the same objects", () => {
    for (const name of DOCUMENTED_NAMES.filter(
      (name) => !UTILS_ONLY.includes(name),
    ))
      expect(helpers[name as keyof typeof helpers], name).toBe(
        utils[name as keyof typeof utils],
      );
  });

  it("imports nothing but its own relative modules, so it loads in workerd", () => {
    const root = dirname(fileURLToPath(import.meta.url));
    const seen = new Set<string>();
    const external: string[] = [];
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const source = readFileSync(file, "utf8")
        .replace(/\/\*[\s\S]*?\*\//g, "")
        .replace(/^\s*\/\/.*$/gm, "");
      for (const [, specifier] of source.matchAll(
        /(?:from|import)\s*\(?\s*"([^"]+)"/g,
      )) {
        if (specifier!.startsWith("."))
          visit(resolve(dirname(file), specifier!.replace(/\.js$/, ".ts")));
        else external.push(`${file}: ${specifier}`);
      }
    };
    visit(resolve(root, "index.ts"));
    expect(external).toEqual([]);
    expect(seen.size).toBeGreaterThan(10);
  });
});
