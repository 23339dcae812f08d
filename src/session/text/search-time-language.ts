/**
 * The shape of one language's time expressions for `readQueryTime` (search-time.ts): a list of
 * patterns and what each match means. English is search-time-english.ts.
 */

/** A span of wall-clock time in the query's zone, local milliseconds, `end` exclusive. */
export interface LocalSpan {
  start: number;
  end: number;
}

/** The moment a query is read at, in its zone. */
export interface TimeCalendar {
  /** The real instant, UTC milliseconds. */
  now: number;
  /** Its wall-clock time in the zone, local milliseconds. */
  nowLocal: number;
  /** The start of its day in the zone, local milliseconds. */
  today: number;
}

/** One kind of time expression: a global, case-insensitive pattern and what its match means. */
export interface TimePattern {
  name: string;
  pattern: RegExp;
  /** The span a match names, or `null` when the words name no real time (31 February). */
  resolve(
    groups: Record<string, string | undefined>,
    calendar: TimeCalendar,
  ): LocalSpan | null;
}

/** The time expressions of one language, tried in order (longest forms first). */
export interface TimeLanguage {
  /** BCP 47 primary language subtag: `"en"`. */
  code: string;
  patterns: readonly TimePattern[];
}
