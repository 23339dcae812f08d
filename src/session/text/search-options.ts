import type {
  MatchMode,
  PrefixMode,
  TextSearchOptions,
} from "../contracts/types.js";
import { invalidArgument } from "../errors/index.js";

/** What a caller may pass for the text options of `session.search()` and `manager.search()`. */
export interface TextSearchInput {
  match?: MatchMode;
  since?: string | Date;
  until?: string | Date;
  /** `true` is `"last"`; `false` is whole words, as when absent. */
  prefix?: boolean | PrefixMode;
  /** A positive integer (`TextSearchOptions.rankWindow`). */
  rankWindow?: number;
}

/**
 * The text options a backend receives (docs/behavior/search.md): `match` checked, `since` and
 * `until` turned into ISO-8601 UTC instants with milliseconds, as `createdAt` is stored, so a
 * backend compares them as strings; `prefix: true` becomes `"last"` and `false` is dropped.
 * Absent options stay absent. Anything else is an
 * `INVALID_ARGUMENT` `ArborTypeError`, thrown before any store is asked.
 */
export function normalizeTextSearchOptions(
  options: TextSearchInput | undefined,
): TextSearchOptions {
  const out: TextSearchOptions = {};
  if (options === undefined || options === null) return out;
  const { match, since, until, prefix } = options;
  if (match !== undefined) {
    if (match !== "any" && match !== "all")
      invalid(`match must be "any" or "all", got ${JSON.stringify(match)}`);
    out.match = match;
  }
  const mode = prefixMode(prefix);
  if (mode !== undefined) out.prefix = mode;
  const { rankWindow } = options;
  if (rankWindow !== undefined) {
    if (!Number.isSafeInteger(rankWindow) || rankWindow < 1)
      invalid(
        `rankWindow must be a positive integer, got ${JSON.stringify(rankWindow)}`,
      );
    out.rankWindow = rankWindow;
  }
  if (since !== undefined) out.since = toInstant("since", since);
  if (until !== undefined) out.until = toInstant("until", until);
  return out;
}

/** True when a message created at `createdAt` (ISO-8601 UTC) passes `since` and `until`. */
export function withinTimeRange(
  createdAt: string,
  options: Pick<TextSearchOptions, "since" | "until">,
): boolean {
  if (options.since !== undefined && createdAt < options.since) return false;
  if (options.until !== undefined && createdAt >= options.until) return false;
  return true;
}

/**
 * The `prefix` a backend receives for what a caller passed: `true` and `"last"` are `"last"`,
 * `"all"` is `"all"`, `false` and absence are `undefined`; anything else is `INVALID_ARGUMENT`.
 */
export function prefixMode(prefix: unknown): PrefixMode | undefined {
  if (prefix === undefined || prefix === false) return undefined;
  if (prefix === true || prefix === "last") return "last";
  if (prefix === "all") return "all";
  return invalid(
    `prefix must be true, false, "last" or "all", got ${JSON.stringify(prefix)}`,
  );
}

// --- Internal helpers ---

function toInstant(name: string, value: unknown): string {
  let time = Number.NaN;
  if (value instanceof Date) time = value.getTime();
  else if (typeof value === "string" && ISO_INSTANT.test(value)) {
    const text = value.replace(" ", "T");
    // JavaScript reads a date-time without a zone as local time; Arbor reads it as UTC.
    time = Date.parse(
      HAS_ZONE.test(text) || !text.includes(":") ? text : `${text}Z`,
    );
  }
  if (!Number.isFinite(time))
    invalid(
      `${name} must be a Date or an ISO-8601 date or instant, got ${JSON.stringify(value)}`,
    );
  return new Date(time).toISOString();
}

/**
 * A date (`2026-05-07`, read as UTC midnight) or a date and time with an optional zone
 * (`Z` or `±hh:mm`); a time without a zone is read as UTC, as `createdAt` is stored.
 */
const ISO_INSTANT =
  /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

const HAS_ZONE = /(?:Z|[+-]\d{2}:?\d{2})$/i;

function invalid(message: string): never {
  throw invalidArgument(`search: ${message}`);
}
