/**
 * Time in a search query (docs/search.md#time-in-a-query): reads the dates, months, years,
 * weekdays and relative times a query names ("in May 2023", "last week", "yesterday", "two days
 * ago", "on 7 May", "2023-05-07", "this morning") into spans of time, relative to `now` in a time
 * zone, and removes those words from the query's terms. Pure: no clock of its own unless `now`
 * is left out, no I/O. A language is a list of patterns (`TimeLanguage`); English is the first.
 */
import { invalidArgument } from "../errors/index.js";
import { ENGLISH_TIME } from "./search-time-english.js";
import type { TimeCalendar, TimeLanguage } from "./search-time-language.js";
import { DAY_MS, fromLocal, toLocal } from "./search-time-zone.js";

export type {
  LocalSpan,
  TimeCalendar,
  TimeLanguage,
  TimePattern,
} from "./search-time-language.js";

/** A span of time a query names, as the `since`/`until` pair of a search. */
export interface QueryTimeRange {
  /** ISO-8601 UTC, inclusive. */
  since: string;
  /** ISO-8601 UTC, exclusive. */
  until: string;
  /** The words of the query that named it, as written. */
  phrase: string;
}

/** What `readQueryTime` found. */
export interface QueryTime {
  /** The query without its time expressions, spaces collapsed. */
  text: string;
  /**
   * The words of those expressions that name a calendar day, month or year (a weekday, a month's
   * name, a year: "friday" in "on friday", "May" and "2023" in "in May 2023"), as written. They
   * stay search terms: a message that holds the word matches it whenever it was written.
   */
  names: string[];
  /** The spans named, in the order they appear in the query. */
  ranges: QueryTimeRange[];
}

/** Options of `readQueryTime`. */
export interface QueryTimeOptions {
  /** The moment relative times count from; default the current time. */
  now?: string | Date;
  /** IANA time zone name the query's words are meant in (through `Intl`); default `"UTC"`. */
  timeZone?: string;
  /** Languages to read, by code; default `["en"]`. */
  languages?: readonly string[];
}

/** The languages `readQueryTime` knows, by code. */
export const TIME_LANGUAGES: ReadonlyMap<string, TimeLanguage> = new Map([
  [ENGLISH_TIME.code, ENGLISH_TIME],
]);

/**
 * Reads the time expressions of a query. Each piece of the query is read at most once, by the
 * first pattern that matches it; `since X` names the time from X up to `now`. Invalid `now` or
 * `timeZone` throws `INVALID_ARGUMENT`.
 */
export function readQueryTime(
  query: string,
  options: QueryTimeOptions = {},
): QueryTime {
  const now = instantOption(options.now, "now") ?? Date.now();
  const timeZone = options.timeZone ?? "UTC";
  if (typeof timeZone !== "string")
    throw invalidArgument("search: timeZone must be a string");
  const nowLocal = toLocal(now, timeZone);
  const calendar: TimeCalendar = {
    now,
    nowLocal,
    today: Math.floor(nowLocal / DAY_MS) * DAY_MS,
  };
  // Pieces read are blotted out of `masked` (same length, so offsets stay those of `query`) with a
  // character no pattern matches; `removed` lists those that leave the terms.
  let masked = query;
  const found: Array<{ at: number; range: QueryTimeRange }> = [];
  const removed: Array<[number, number]> = [];
  const names: string[] = [];
  for (const language of languagesOf(options.languages)) {
    for (const timePattern of language.patterns) {
      const { pattern } = timePattern;
      pattern.lastIndex = 0;
      for (const match of masked.matchAll(pattern)) {
        const groups = lowerCased(match.groups ?? {});
        const at = match.index;
        const phrase = query.slice(at, at + match[0].length);
        masked =
          masked.slice(0, at) +
          BLOT.repeat(phrase.length) +
          masked.slice(at + phrase.length);
        const span = timePattern.resolve(groups, calendar);
        // Words naming no real time ("31 February") stay terms, and no shorter pattern rereads them.
        if (span === null || !(span.end > span.start)) continue;
        const end = groups.since !== undefined ? nowLocal + 1 : span.end;
        removed.push([at, at + phrase.length]);
        names.push(...namingWords(match.groups ?? {}));
        found.push({
          at,
          range: {
            since: isoOf(fromLocal(span.start, timeZone)),
            until: isoOf(fromLocal(end, timeZone)),
            phrase,
          },
        });
      }
    }
  }
  found.sort((a, b) => a.at - b.at);
  removed.sort((a, b) => a[0] - b[0]);
  let text = "";
  let from = 0;
  for (const [start, end] of removed) {
    text += `${query.slice(from, start)} `;
    from = end;
  }
  text += query.slice(from);
  return {
    text: text.replace(/\s+/gu, " ").trim(),
    names,
    ranges: found.map((entry) => entry.range),
  };
}

/**
 * The words of a matched expression that name a day, month or year: a weekday, a month written
 * as a word, a year. Prepositions, relative words ("last", "ago", "yesterday") and day numbers
 * are not: they say when, not what a message would hold.
 */
function namingWords(groups: Record<string, string | undefined>): string[] {
  return [groups.weekday, groups.month, groups.year].filter(
    (word): word is string =>
      word !== undefined && /^(?:\p{L}+\.?|\d{4})$/u.test(word),
  );
}

/**
 * A `Date` or ISO-8601 string option as UTC milliseconds; `undefined` when absent. Anything else
 * throws `INVALID_ARGUMENT` naming the option.
 */
export function instantOption(
  value: unknown,
  name: string,
): number | undefined {
  if (value === undefined) return undefined;
  const time =
    value instanceof Date
      ? value.getTime()
      : typeof value === "string" && value.trim() !== ""
        ? Date.parse(value)
        : Number.NaN;
  if (Number.isNaN(time))
    throw invalidArgument(
      `search: ${name} must be a valid Date or ISO-8601 string, got ${JSON.stringify(value)}`,
    );
  return time;
}

// --- Internal helpers ---

/** Stands in for read pieces while the patterns run: neither a letter, a digit nor a space. */
const BLOT = "\u0001";

function lowerCased(
  groups: Record<string, string | undefined>,
): Record<string, string | undefined> {
  return Object.fromEntries(
    Object.entries(groups).map(([key, value]) => [key, value?.toLowerCase()]),
  );
}

function languagesOf(codes: readonly string[] | undefined): TimeLanguage[] {
  const list = codes ?? ["en"];
  return list.map((code) => {
    const language = TIME_LANGUAGES.get(code);
    if (!language)
      throw invalidArgument(
        `search: no time expressions for language ${JSON.stringify(code)} (known: ${[...TIME_LANGUAGES.keys()].join(", ")})`,
      );
    return language;
  });
}

function isoOf(instant: number): string {
  return new Date(instant).toISOString();
}
