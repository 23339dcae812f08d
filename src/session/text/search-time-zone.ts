/**
 * Wall-clock arithmetic in an IANA time zone through `Intl` (no time-zone data of our own), for
 * reading dates out of search queries (docs/search.md#time-in-a-query). A "local" instant is the
 * wall-clock time of the zone written as if it were UTC milliseconds; calendar steps (a day back,
 * the first of the month) are done on it with `Date.UTC`, and only the span's ends are turned
 * back into real instants.
 */
import { ArborTypeError } from "../errors/index.js";

/** Milliseconds in a day of the wall clock. */
export const DAY_MS = 86_400_000;

/** A local calendar date: month 1–12. */
export interface LocalDate {
  year: number;
  month: number;
  day: number;
}

/** Formatters by zone: building one costs far more than using it. */
const formatters = new Map<string, Intl.DateTimeFormat>();

/** The formatter of a zone; `INVALID_ARGUMENT` for a name `Intl` does not know. */
export function zoneFormatter(timeZone: string): Intl.DateTimeFormat {
  const known = formatters.get(timeZone);
  if (known) return known;
  let formatter: Intl.DateTimeFormat;
  try {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
  } catch (error) {
    throw new ArborTypeError(
      "INVALID_ARGUMENT",
      `[arbor] search: timeZone must be an IANA time zone name such as "Europe/Lisbon", got ${JSON.stringify(timeZone)}`,
      { cause: error },
    );
  }
  formatters.set(timeZone, formatter);
  return formatter;
}

/** The zone's wall-clock time at `instant`, as local milliseconds. */
export function toLocal(instant: number, timeZone: string): number {
  // UTC, the default, has no offset: no formatter, whose first construction loads the zone data
  // (tens of milliseconds on a cold start, paid by the first search of every query).
  if (timeZone === "UTC") return instant;
  const parts = new Map<string, string>(
    zoneFormatter(timeZone)
      .formatToParts(new Date(instant))
      .map((part) => [part.type, part.value]),
  );
  const field = (name: string) => Number(parts.get(name) ?? "0");
  const wall = Date.UTC(
    field("year"),
    field("month") - 1,
    field("day"),
    field("hour"),
    field("minute"),
    field("second"),
  );
  return wall + (((instant % 1000) + 1000) % 1000);
}

/**
 * The real instant whose wall-clock time in the zone is `local`. A wall time skipped by a
 * daylight-saving jump maps to the instant just after the jump; one that occurs twice, to the
 * first.
 */
export function fromLocal(local: number, timeZone: string): number {
  const firstOffset = toLocal(local, timeZone) - local;
  const guess = local - firstOffset;
  const secondOffset = toLocal(guess, timeZone) - guess;
  if (secondOffset === firstOffset) return guess;
  const other = local - secondOffset;
  return toLocal(other, timeZone) === local ? other : Math.max(guess, other);
}

/** Local milliseconds of the start of a calendar date. */
export function localOf(date: LocalDate): number {
  return Date.UTC(date.year, date.month - 1, date.day);
}

/** The calendar date of local milliseconds. */
export function dateOf(local: number): LocalDate {
  const date = new Date(local);
  return {
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
  };
}

/** Day of the week of a local instant: 0 Monday … 6 Sunday (weeks start on Monday, ISO 8601). */
export function weekdayOf(local: number): number {
  return (new Date(local).getUTCDay() + 6) % 7;
}
