import { jsonText } from "../json-text.js";

const MAX_DEPTH = 8;
const MIN_CHILD_BUDGET = 80;
const MAX_BUDGET_SHARES = 10;
const OMITTED_NOTE =
  "Tool output omitted because it was too large to preserve structurally.";

/** What `truncateToolOutput` returns. */
export interface TruncatedToolOutput {
  /** The output, shortened when `truncated`. */
  output: unknown;
  truncated: boolean;
  /** Length of the original: the string itself, or its JSON text. */
  originalLength: number;
}

/**
 * Shortens a tool output to about `maxChars` characters of JSON, keeping its shape where it can
 * (SPEC §6.9): strings keep a prefix and a `... [truncated <n> chars]` suffix, arrays and objects
 * shorten their items, then drop items or fields, then collapse to a marker.
 */
export function truncateToolOutput(
  output: unknown,
  maxChars: number,
): TruncatedToolOutput {
  const originalLength = lengthOf(output);
  if (originalLength <= maxChars)
    return { output, truncated: false, originalLength };
  const shortened = truncateValue(output, maxChars, 0);
  return {
    output: shortened,
    truncated: shortened !== output,
    originalLength,
  };
}

/** `... [truncated <n> chars]`. */
export function truncationSuffix(length: number): string {
  return `... [truncated ${length} chars]`;
}

/** The first `maxChars - suffix` characters and the suffix; a prefix of the suffix if that is all that fits. */
export function truncateString(text: string, maxChars: number): string {
  const suffix = truncationSuffix(text.length);
  const keep = maxChars - suffix.length;
  if (keep <= 0) return suffix.slice(0, Math.max(0, maxChars));
  return sliceChars(text, keep) + suffix;
}

/** The first `count` UTF-16 units, one less when that would cut a surrogate pair in half. */
export function sliceChars(text: string, count: number): string {
  const code = text.charCodeAt(count - 1);
  const cutsPair = code >= 0xd800 && code <= 0xdbff && count < text.length;
  return text.slice(0, cutsPair ? count - 1 : count);
}

// --- Internal helpers ---

function truncateValue(
  value: unknown,
  maxChars: number,
  depth: number,
): unknown {
  const length = lengthOf(value);
  if (length <= maxChars) return value;
  if (typeof value === "string") return truncateString(value, maxChars);
  if (value === null || typeof value !== "object") return value;
  if (depth > MAX_DEPTH)
    return `[Nested output omitted${truncationSuffix(length)}]`;
  if (Array.isArray(value))
    return truncateArray(value, maxChars, depth, length);
  return truncateObject(
    value as Record<string, unknown>,
    maxChars,
    depth,
    length,
  );
}

function truncateArray(
  items: unknown[],
  maxChars: number,
  depth: number,
  originalLength: number,
): unknown[] {
  const budget = childBudget(maxChars, items.length);
  const truncated = items.map((item) => truncateValue(item, budget, depth + 1));
  if (lengthOf(truncated) <= maxChars) return truncated;

  const marker = `Array output truncated${truncationSuffix(originalLength)}`;
  // JSON of [a, b, …, marker] is 2 brackets, the items, one comma per item, and the marker.
  const itemLengths = truncated.map((item) => jsonText(item).length);
  let length =
    2 +
    jsonText(marker).length +
    itemLengths.reduce((sum, itemLength) => sum + itemLength + 1, 0);
  for (let keep = truncated.length - 1; keep >= 1; keep--) {
    length -= itemLengths[keep]! + 1;
    if (length <= maxChars) return [...truncated.slice(0, keep), marker];
  }
  return [marker];
}

function truncateObject(
  value: Record<string, unknown>,
  maxChars: number,
  depth: number,
  originalLength: number,
): Record<string, unknown> {
  const keys = Object.keys(value);
  const budget = childBudget(maxChars, keys.length);
  const shortened: Record<string, unknown> = {};
  for (const key of keys)
    shortened[key] = truncateValue(value[key], budget, depth + 1);
  if (lengthOf(shortened) <= maxChars) return shortened;

  const fieldBudget = Math.floor(maxChars / 4);
  const longestStrings = keys
    .filter((key) => typeof shortened[key] === "string")
    .sort(
      (a, b) =>
        (shortened[b] as string).length - (shortened[a] as string).length,
    );
  for (const key of longestStrings) {
    const text = shortened[key] as string;
    if (text.length <= fieldBudget) break;
    // Shorten the original string, so the suffix reports its real length.
    const original = value[key];
    shortened[key] = truncateString(
      typeof original === "string" ? original : text,
      fieldBudget,
    );
    if (lengthOf(shortened) <= maxChars) return shortened;
  }

  // SPEC's next step, adding `__truncated` fields to this object, can only lengthen JSON that is
  // already too long, so it goes straight to the marker object.
  const omitted = {
    __truncated: true,
    __truncatedChars: originalLength,
    note: OMITTED_NOTE,
  };
  if (lengthOf(omitted) <= maxChars) return omitted;
  return { __truncated: true, __truncatedChars: originalLength };
}

/** Each child's share of the budget: all of it for one child, else a tenth or more, at least 80. */
function childBudget(maxChars: number, count: number): number {
  if (count <= 1) return maxChars;
  return Math.max(
    MIN_CHILD_BUDGET,
    Math.floor(maxChars / Math.min(count, MAX_BUDGET_SHARES)),
  );
}

function lengthOf(value: unknown): number {
  return typeof value === "string" ? value.length : jsonText(value).length;
}
