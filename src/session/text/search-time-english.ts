/**
 * English time expressions in search queries (docs/search.md#time-in-a-query): dates, months,
 * years, weekdays and relative times. Each pattern names what it reads; the shared reader in
 * `search-time.ts` runs them in order, longest forms first, and removes what they matched.
 * Another language is another `TimeLanguage` beside this one.
 */
import {
  DAY_MS,
  dateOf,
  localOf,
  weekdayOf,
  type LocalDate,
} from "./search-time-zone.js";
import type {
  LocalSpan,
  TimeCalendar,
  TimeLanguage,
} from "./search-time-language.js";

// Each as `|`-separated groups of `,`-separated names, numbered from the first group's number.
const MONTHS = numbered(
  "january,jan|february,feb|march,mar|april,apr|may|june,jun|july,jul|august,aug|" +
    "september,sept,sep|october,oct|november,nov|december,dec",
  1,
);

const WEEKDAYS = numbered(
  "monday|tuesday|wednesday|thursday|friday|saturday|sunday",
  0,
);

const COUNTS = numbered(
  "a,an,one|two,a couple of|three|four|five|six|seven|eight|nine|ten|eleven|twelve",
  1,
);

/** Hours of the parts of a day, local time: [start, end), an end past 24 runs into the next day. */
const PARTS_OF_DAY = new Map<string, [number, number]>([
  ["morning", [5, 12]],
  ["afternoon", [12, 18]],
  ["evening", [18, 24]],
  ["night", [18, 30]],
]);

const MONTH = `(?<month>${[...MONTHS.keys()].sort((a, b) => b.length - a.length).join("|")})\\.?`;
const WEEKDAY = `(?<weekday>${[...WEEKDAYS.keys()].join("|")})`;
const COUNT = `(?<count>\\d{1,3}|${[...COUNTS.keys()].sort((a, b) => b.length - a.length).join("|")})`;
const YEAR = `(?<year>1[89]\\d\\d|2[01]\\d\\d)`;
const DAY = `(?<day>[12]\\d|3[01]|0?[1-9])(?:st|nd|rd|th)?`;
const UNIT = `(?<unit>day|week|month|year)s?`;
/** A preposition before an expression: removed with it; `since` also stretches the span to now. */
const LEAD = `(?:(?<since>since)\\s+|(?:in|on|during|at|from|of|for|around)\\s+)?(?:the\\s+)?`;

/** English. */
export const ENGLISH_TIME: TimeLanguage = {
  code: "en",
  patterns: [
    {
      name: "iso-date",
      pattern: re(`${LEAD}(?<year>\\d{4})-(?<month>\\d{1,2})-(?<day>\\d{1,2})`),
      resolve: (groups) =>
        dayOfDate(
          Number(groups.year),
          Number(groups.month),
          Number(groups.day),
        ),
    },
    {
      name: "day-month-year",
      pattern: re(`${LEAD}${DAY}\\s+(?:of\\s+)?${MONTH}(?:,?\\s+${YEAR})?`),
      resolve: (groups, calendar) =>
        dayOfMonthDay(calendar, monthOf(groups), Number(groups.day), groups),
    },
    {
      name: "month-day-year",
      pattern: re(`${LEAD}${MONTH}\\s+${DAY}(?:,?\\s+${YEAR})?`),
      resolve: (groups, calendar) =>
        dayOfMonthDay(calendar, monthOf(groups), Number(groups.day), groups),
    },
    {
      name: "iso-month",
      pattern: re(`${LEAD}(?<year>\\d{4})-(?<month>0[1-9]|1[0-2])`),
      resolve: (groups) => monthSpan(Number(groups.year), Number(groups.month)),
    },
    {
      name: "month-year",
      pattern: re(
        `${LEAD}(?:(?<part>early|mid|late)[\\s-]+)?${MONTH},?\\s+(?:of\\s+)?${YEAR}`,
      ),
      resolve: (groups) =>
        partOfMonth(
          monthSpan(Number(groups.year), monthOf(groups)),
          groups.part,
        ),
    },
    {
      // A bare month needs a word before it: "may" alone is more often a verb.
      name: "month",
      pattern: re(
        `(?:(?<since>since)\\s+|(?<which>last|this|next)\\s+|(?:in|during|from|of|for)\\s+(?:(?<part>early|mid|late)[\\s-]+)?|(?<part2>early|mid|late)[\\s-]+)${MONTH}`,
      ),
      resolve: (groups, calendar) =>
        partOfMonth(
          monthWithoutYear(calendar, monthOf(groups), groups.which),
          groups.part ?? groups.part2,
        ),
    },
    {
      // A bare number is a year only after a preposition: "error 2022" keeps its term.
      name: "year",
      pattern: re(
        `(?:(?<since>since)\\s+|(?:in|during|from|of|for|around)\\s+)(?:the\\s+)?(?:year\\s+)?${YEAR}`,
      ),
      resolve: (groups) => yearSpan(Number(groups.year)),
    },
    {
      name: "units-ago",
      pattern: re(`${LEAD}${COUNT}\\s+${UNIT}\\s+ago`),
      resolve: (groups, calendar) =>
        unitsAgo(calendar, countOf(groups.count), groups.unit!),
    },
    {
      name: "past-units",
      pattern: re(
        `(?:(?:in|during|over|for|within)\\s+)?(?:the\\s+)?(?:past|last|previous)\\s+${COUNT}\\s+${UNIT}`,
      ),
      resolve: (groups, calendar) =>
        pastUnits(calendar, countOf(groups.count), groups.unit!),
    },
    {
      name: "day-before-yesterday",
      pattern: re(`${LEAD}day\\s+before\\s+yesterday`),
      resolve: (_groups, calendar) => daySpan(calendar.today - 2 * DAY_MS),
    },
    {
      name: "relative-day",
      pattern: re(
        `${LEAD}(?<relative>yesterday|today|tomorrow)(?:\\s+(?:in\\s+the\\s+)?(?<dayPart>morning|afternoon|evening|night))?`,
      ),
      resolve: (groups, calendar) => {
        const offset =
          groups.relative === "yesterday"
            ? -1
            : groups.relative === "tomorrow"
              ? 1
              : 0;
        const day = calendar.today + offset * DAY_MS;
        return groups.dayPart ? partOfDay(day, groups.dayPart) : daySpan(day);
      },
    },
    {
      name: "this-part-of-day",
      pattern: re(
        `${LEAD}(?:(?<which>this|last)\\s+(?<dayPart>morning|afternoon|evening|night)|(?<tonight>tonight))`,
      ),
      resolve: (groups, calendar) => {
        if (groups.tonight) return partOfDay(calendar.today, "night");
        // "Last night" is the night that ended this morning.
        const day =
          groups.which === "last" ? calendar.today - DAY_MS : calendar.today;
        return partOfDay(day, groups.dayPart!);
      },
    },
    {
      name: "relative-period",
      pattern: re(
        `${LEAD}(?<which>last|this|next|past|previous|current)\\s+(?<period>week|weekend|month|year)`,
      ),
      resolve: (groups, calendar) =>
        relativePeriod(calendar, groups.which!, groups.period!),
    },
    {
      name: "weekday",
      // A weekday needs a word before it: "Sunday roast" keeps its term.
      pattern: re(
        `(?:(?<since>since)|(?<which>last|this|next|on|of|from))\\s+${WEEKDAY}`,
      ),
      resolve: (groups, calendar) =>
        weekday(calendar, WEEKDAYS.get(groups.weekday!)!, groups.which),
    },
  ],
};

// --- Internal helpers ---

/** A map from each name in `groups` to its group's number (see `MONTHS`), in the order written. */
function numbered(groups: string, first: number): Map<string, number> {
  return new Map(
    groups
      .split("|")
      .flatMap((names, index) =>
        names.split(",").map((name) => [name, first + index] as const),
      ),
  );
}

function re(source: string): RegExp {
  return new RegExp(`(?<![\\p{L}\\p{N}])${source}(?![\\p{L}\\p{N}])`, "giu");
}

type Groups = Record<string, string | undefined>;

function monthOf(groups: Groups): number {
  const name = groups.month!.toLowerCase().replace(/\.$/u, "");
  return MONTHS.get(name) ?? Number(name);
}

function countOf(count: string | undefined): number {
  const word = (count ?? "1").toLowerCase().replace(/\s+/gu, " ");
  return COUNTS.get(word) ?? Number(word);
}

function daySpan(start: number): LocalSpan {
  return { start, end: start + DAY_MS };
}

function dayOfDate(year: number, month: number, day: number): LocalSpan | null {
  if (month < 1 || month > 12 || day < 1) return null;
  const start = localOf({ year, month, day });
  // 31 February is no date: refuse it rather than roll into March.
  if (dateOf(start).month !== month) return null;
  return daySpan(start);
}

/** A day and month, in the given year or else the latest such date not after today. */
function dayOfMonthDay(
  calendar: TimeCalendar,
  month: number,
  day: number,
  groups: Groups,
): LocalSpan | null {
  if (groups.year) return dayOfDate(Number(groups.year), month, day);
  const thisYear = dateOf(calendar.today).year;
  const candidate = dayOfDate(thisYear, month, day);
  if (candidate && candidate.start <= calendar.today) return candidate;
  return dayOfDate(thisYear - 1, month, day);
}

function monthSpan(year: number, month: number): LocalSpan {
  return {
    start: localOf({ year, month, day: 1 }),
    end: localOf({
      year: month === 12 ? year + 1 : year,
      month: (month % 12) + 1,
      day: 1,
    }),
  };
}

function yearSpan(year: number): LocalSpan {
  return {
    start: localOf({ year, month: 1, day: 1 }),
    end: localOf({ year: year + 1, month: 1, day: 1 }),
  };
}

/** A month named without a year: this year's when it has begun, else last year's ("last"/"next" step). */
function monthWithoutYear(
  calendar: TimeCalendar,
  month: number,
  which: string | undefined,
): LocalSpan {
  const today: LocalDate = dateOf(calendar.today);
  const relation = which?.toLowerCase();
  if (relation === "this") return monthSpan(today.year, month);
  if (relation === "next")
    return monthSpan(month > today.month ? today.year : today.year + 1, month);
  if (relation === "last")
    return monthSpan(month < today.month ? today.year : today.year - 1, month);
  return monthSpan(month <= today.month ? today.year : today.year - 1, month);
}

/** Early: days 1–10, mid: 11–20, late: 21 to the end. */
function partOfMonth(span: LocalSpan, part: string | undefined): LocalSpan {
  switch (part?.toLowerCase()) {
    case "early":
      return { start: span.start, end: span.start + 10 * DAY_MS };
    case "mid":
      return {
        start: span.start + 10 * DAY_MS,
        end: span.start + 20 * DAY_MS,
      };
    case "late":
      return { start: span.start + 20 * DAY_MS, end: span.end };
    default:
      return span;
  }
}

function partOfDay(day: number, part: string): LocalSpan {
  const [from, to] = PARTS_OF_DAY.get(part.toLowerCase())!;
  return { start: day + from * 3_600_000, end: day + to * 3_600_000 };
}

function weekStart(day: number): number {
  return day - weekdayOf(day) * DAY_MS;
}

/** "Two days ago": that day; "three weeks ago": that week; months and years likewise. */
function unitsAgo(
  calendar: TimeCalendar,
  count: number,
  unit: string,
): LocalSpan | null {
  if (!Number.isSafeInteger(count) || count < 0) return null;
  const today = dateOf(calendar.today);
  switch (unit.toLowerCase()) {
    case "day":
      return daySpan(calendar.today - count * DAY_MS);
    case "week": {
      const start = weekStart(calendar.today) - count * 7 * DAY_MS;
      return { start, end: start + 7 * DAY_MS };
    }
    case "month": {
      const index = today.year * 12 + (today.month - 1) - count;
      return monthSpan(Math.floor(index / 12), (index % 12) + 1);
    }
    default:
      return yearSpan(today.year - count);
  }
}

/** "The past three days": from that many units before today up to now. */
function pastUnits(
  calendar: TimeCalendar,
  count: number,
  unit: string,
): LocalSpan | null {
  if (!Number.isSafeInteger(count) || count < 1) return null;
  const end = calendar.nowLocal + 1;
  const today = dateOf(calendar.today);
  switch (unit.toLowerCase()) {
    case "day":
      return { start: calendar.today - (count - 1) * DAY_MS, end };
    case "week":
      return { start: calendar.today - count * 7 * DAY_MS, end };
    case "month": {
      const index = today.year * 12 + (today.month - 1) - count;
      const year = Math.floor(index / 12);
      return {
        start: localOf({ year, month: (index % 12) + 1, day: today.day }),
        end,
      };
    }
    default:
      return {
        start: localOf({ ...today, year: today.year - count }),
        end,
      };
  }
}

function relativePeriod(
  calendar: TimeCalendar,
  which: string,
  period: string,
): LocalSpan {
  const step =
    which.toLowerCase() === "next"
      ? 1
      : which.toLowerCase() === "this" || which.toLowerCase() === "current"
        ? 0
        : -1;
  const today = dateOf(calendar.today);
  switch (period.toLowerCase()) {
    case "week": {
      const start = weekStart(calendar.today) + step * 7 * DAY_MS;
      return { start, end: start + 7 * DAY_MS };
    }
    case "weekend": {
      // The weekend of this week (Saturday and Sunday), or of the week before or after.
      const start = weekStart(calendar.today) + (5 + step * 7) * DAY_MS;
      return { start, end: start + 2 * DAY_MS };
    }
    case "month": {
      const index = today.year * 12 + (today.month - 1) + step;
      return monthSpan(Math.floor(index / 12), (index % 12) + 1);
    }
    default:
      return yearSpan(today.year + step);
  }
}

/** A weekday: the latest one before today ("last", or none), this week's, or the next one. */
function weekday(
  calendar: TimeCalendar,
  target: number,
  which: string | undefined,
): LocalSpan {
  const current = weekdayOf(calendar.today);
  const relation = which?.toLowerCase();
  if (relation === "this")
    return daySpan(weekStart(calendar.today) + target * DAY_MS);
  if (relation === "next") {
    const ahead = (target - current + 7) % 7 || 7;
    return daySpan(calendar.today + ahead * DAY_MS);
  }
  // Bare "on Friday" may be today; "last Friday" never is.
  const back = (current - target + 7) % 7;
  const days = relation === "last" && back === 0 ? 7 : back;
  return daySpan(calendar.today - days * DAY_MS);
}
