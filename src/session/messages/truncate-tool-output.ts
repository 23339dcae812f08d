import { jsonText } from "./json-text.js";

const MAX_DEPTH = 8;
const MIN_CHILD_BUDGET = 80;
const MAX_BUDGET_SHARES = 10;
/** Below this, a shrunken first item says less than the array marker alone. */
const MIN_SHRUNK_ITEM = 20;
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
 * Shortens a tool output to at most `maxChars` characters (of the string itself, or of its JSON
 * text), keeping its shape where it can (docs/behavior/overlays.md): strings keep a prefix and a
 * `... [truncated <n> chars]` suffix; arrays shorten their items, then drop trailing items behind
 * a marker; objects shorten their values, and when that is not enough they keep every key and
 * share what the keys, braces and commas leave among the values, shrinking nested arrays and
 * objects again. Only when the keys alone do not fit does an object collapse to a marker.
 * Numbers, booleans and `null` are never changed, so a container can exceed a budget smaller
 * than its empty form (`[]`, `{}`: 2 characters).
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

/** First pass: a top-level string is measured by its own length, others by their JSON text. */
function truncateValue(
  value: unknown,
  maxChars: number,
  depth: number,
): unknown {
  const length = lengthOf(value);
  if (length <= maxChars) return value;
  if (typeof value === "string") return truncateString(value, maxChars);
  return fitValue(value, maxChars, depth);
}

/** The value within `maxChars` characters of JSON, when its smallest form fits (see `smallestLength`). */
function fitValue(value: unknown, maxChars: number, depth: number): unknown {
  const length = jsonText(value).length;
  if (length <= maxChars) return value;
  if (typeof value === "string") return fitString(value, maxChars);
  if (value === null || typeof value !== "object") return value;
  if (depth > MAX_DEPTH)
    return fitString(
      `[Nested output omitted${truncationSuffix(length)}]`,
      maxChars,
    );
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
  if (jsonText(truncated).length <= maxChars) return truncated;
  if (items.length === 1) {
    // Nothing is dropped, so no marker: the item gets all but the brackets.
    const only = fitValue(items[0], maxChars - 2, depth + 1);
    if (jsonText(only).length <= maxChars - 2) return [only];
  }

  const suffix = truncationSuffix(originalLength);
  // The short marker is for budgets too small for the long one.
  for (const marker of [`Array output truncated${suffix}`, suffix]) {
    const kept = keepWithMarker(items, truncated, marker, maxChars, depth);
    if (kept) return kept;
  }
  return maxChars >= 4 ? [suffix.slice(0, maxChars - 4)] : [];
}

/** Leading items (at their first-pass size, else the first one shrunk to fit) and `marker`. */
function keepWithMarker(
  items: unknown[],
  truncated: unknown[],
  marker: string,
  maxChars: number,
  depth: number,
): unknown[] | null {
  const markerLength = jsonText(marker).length;
  // JSON of [a, b, …, marker] is 2 brackets, the items, one comma per item, and the marker.
  const itemLengths = truncated.map((item) => jsonText(item).length);
  let length =
    2 + markerLength + itemLengths.reduce((sum, item) => sum + item + 1, 0);
  for (let keep = truncated.length - 1; keep >= 1; keep--) {
    length -= itemLengths[keep]! + 1;
    if (length <= maxChars) return [...truncated.slice(0, keep), marker];
  }
  // Even the first item at its share was too long: shrink it to what the marker leaves.
  const room = maxChars - 3 - markerLength;
  if (room >= MIN_SHRUNK_ITEM) {
    const first = fitValue(items[0], room, depth + 1);
    if (jsonText(first).length <= room) return [first, marker];
  }
  return markerLength + 2 <= maxChars ? [marker] : null;
}

function truncateObject(
  value: Record<string, unknown>,
  maxChars: number,
  depth: number,
  originalLength: number,
): Record<string, unknown> {
  const keys = Object.keys(value);
  const budget = childBudget(maxChars, keys.length);
  // Object.fromEntries defines own properties, so a "__proto__" key stays a key.
  const shortened = Object.fromEntries(
    keys.map((key) => [key, truncateValue(value[key], budget, depth + 1)]),
  );
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
    const originalLength = typeof original === "string" ? original.length : 0;
    // A quarter that holds not even the suffix would keep no text: the next step does better.
    if (fieldBudget <= truncationSuffix(originalLength).length) break;
    shortened[key] = truncateString(
      typeof original === "string" ? original : text,
      fieldBudget,
    );
    if (lengthOf(shortened) <= maxChars) return shortened;
  }

  const fitted = fitEveryKey(value, keys, maxChars, depth);
  if (fitted) return fitted;

  // The documented next step, adding `__truncated` fields to this object, can only lengthen JSON that is
  // already too long, so it goes straight to the marker object.
  const omitted = {
    __truncated: true,
    __truncatedChars: originalLength,
    note: OMITTED_NOTE,
  };
  if (lengthOf(omitted) <= maxChars) return omitted;
  const bare = { __truncated: true, __truncatedChars: originalLength };
  return lengthOf(bare) <= maxChars ? bare : {};
}

/**
 * Keeps every key: the braces, keys, colons and commas are reserved first, every value its
 * smallest form, and the rest is shared out evenly (a value shorter than its share gives the
 * difference to the others). `null` when even the keys do not fit.
 */
function fitEveryKey(
  value: Record<string, unknown>,
  keys: string[],
  maxChars: number,
  depth: number,
): Record<string, unknown> | null {
  const overhead =
    2 +
    Math.max(0, keys.length - 1) +
    keys.reduce((sum, key) => sum + jsonText(key).length + 1, 0);
  const fields = keys.map((key) => {
    const smallest = smallestLength(value[key]);
    return { key, smallest, extra: jsonText(value[key]).length - smallest };
  });
  let spare =
    maxChars - overhead - fields.reduce((sum, f) => sum + f.smallest, 0);
  if (spare < 0) return null;

  const allowance = new Map<string, number>();
  const byNeed = [...fields].sort((a, b) => a.extra - b.extra);
  byNeed.forEach((field, index) => {
    const share = Math.floor(spare / (byNeed.length - index));
    const extra = Math.min(field.extra, share);
    spare -= extra;
    allowance.set(field.key, field.smallest + extra);
  });
  return Object.fromEntries(
    keys.map((key) => [
      key,
      fitValue(value[key], allowance.get(key)!, depth + 1),
    ]),
  );
}

/** The JSON length a value can shrink to: `""`, `[]` and `{}` are 2; other values cannot shrink. */
function smallestLength(value: unknown): number {
  if (
    typeof value === "string" ||
    (value !== null && typeof value === "object")
  )
    return 2;
  return jsonText(value).length;
}

/** A string whose JSON text (quotes and escapes included) fits `maxChars`, when `maxChars >= 2`. */
function fitString(text: string, maxChars: number): string {
  if (jsonText(text).length <= maxChars) return text;
  const suffix = truncationSuffix(text.length);
  let keep = maxChars - 2 - suffix.length;
  if (keep <= 0) return suffix.slice(0, Math.max(0, maxChars - 2));
  let candidate = sliceChars(text, keep) + suffix;
  // Each character dropped shortens the JSON by at least one, so this ends in a few rounds.
  for (
    let over = jsonText(candidate).length - maxChars;
    over > 0;
    over = jsonText(candidate).length - maxChars
  ) {
    keep = Math.max(0, keep - over);
    candidate = sliceChars(text, keep) + suffix;
  }
  return candidate;
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
