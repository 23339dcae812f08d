import { describe, expect, it } from "vitest";
import { isArborError } from "../errors/index.js";
import { readQueryTime } from "./search-time.js";

// A Wednesday, mid-morning in UTC.
const NOW = "2024-03-13T10:30:00.000Z";

function range(
  query: string,
  options: Parameters<typeof readQueryTime>[1] = {},
) {
  const { ranges, text } = readQueryTime(query, { now: NOW, ...options });
  return { text, spans: ranges.map((r) => [r.since, r.until]) };
}

describe("readQueryTime", () => {
  it("reads a month and year, and removes the words from the terms", () => {
    expect(range("What did Caroline do in May 2023?")).toEqual({
      text: "What did Caroline do ?",
      spans: [["2023-05-01T00:00:00.000Z", "2023-06-01T00:00:00.000Z"]],
    });
  });

  it("reads ISO dates and months", () => {
    expect(range("deploy 2023-05-07").spans).toEqual([
      ["2023-05-07T00:00:00.000Z", "2023-05-08T00:00:00.000Z"],
    ]);
    expect(range("report 2023-05").spans).toEqual([
      ["2023-05-01T00:00:00.000Z", "2023-06-01T00:00:00.000Z"],
    ]);
  });

  it("reads a day and month, in the latest year not after now when no year is given", () => {
    expect(range("party on 7 May").spans).toEqual([
      ["2023-05-07T00:00:00.000Z", "2023-05-08T00:00:00.000Z"],
    ]);
    expect(range("party on 7 March").spans).toEqual([
      ["2024-03-07T00:00:00.000Z", "2024-03-08T00:00:00.000Z"],
    ]);
    expect(range("the 7th of May, 2021").spans).toEqual([
      ["2021-05-07T00:00:00.000Z", "2021-05-08T00:00:00.000Z"],
    ]);
    expect(range("May 7, 2022 launch")).toEqual({
      text: "launch",
      spans: [["2022-05-07T00:00:00.000Z", "2022-05-08T00:00:00.000Z"]],
    });
  });

  it("refuses dates that do not exist and leaves their words", () => {
    expect(range("on 31 February 2023")).toEqual({
      text: "on 31 February 2023",
      spans: [],
    });
  });

  it("reads a year only after a preposition", () => {
    expect(range("trips in 2022")).toEqual({
      text: "trips",
      spans: [["2022-01-01T00:00:00.000Z", "2023-01-01T00:00:00.000Z"]],
    });
    expect(range("error 2022")).toEqual({ text: "error 2022", spans: [] });
  });

  it("reads a bare month only after a word that makes it a month", () => {
    expect(range("what happened in May").spans).toEqual([
      ["2023-05-01T00:00:00.000Z", "2023-06-01T00:00:00.000Z"],
    ]);
    expect(range("in March").spans).toEqual([
      ["2024-03-01T00:00:00.000Z", "2024-04-01T00:00:00.000Z"],
    ]);
    expect(range("may I ask").spans).toEqual([]);
    expect(range("late June 2020").spans).toEqual([
      ["2020-06-21T00:00:00.000Z", "2020-07-01T00:00:00.000Z"],
    ]);
  });

  it("reads relative days, weeks, months and years", () => {
    expect(range("what did we do yesterday").spans).toEqual([
      ["2024-03-12T00:00:00.000Z", "2024-03-13T00:00:00.000Z"],
    ]);
    expect(range("today").spans).toEqual([
      ["2024-03-13T00:00:00.000Z", "2024-03-14T00:00:00.000Z"],
    ]);
    expect(range("the day before yesterday").spans).toEqual([
      ["2024-03-11T00:00:00.000Z", "2024-03-12T00:00:00.000Z"],
    ]);
    // Weeks start on Monday: 2024-03-11.
    expect(range("last week").spans).toEqual([
      ["2024-03-04T00:00:00.000Z", "2024-03-11T00:00:00.000Z"],
    ]);
    expect(range("this week").spans).toEqual([
      ["2024-03-11T00:00:00.000Z", "2024-03-18T00:00:00.000Z"],
    ]);
    expect(range("last month").spans).toEqual([
      ["2024-02-01T00:00:00.000Z", "2024-03-01T00:00:00.000Z"],
    ]);
    expect(range("last year").spans).toEqual([
      ["2023-01-01T00:00:00.000Z", "2024-01-01T00:00:00.000Z"],
    ]);
    expect(range("last weekend").spans).toEqual([
      ["2024-03-09T00:00:00.000Z", "2024-03-11T00:00:00.000Z"],
    ]);
  });

  it("reads counts ago, in digits and words", () => {
    expect(range("two days ago").spans).toEqual([
      ["2024-03-11T00:00:00.000Z", "2024-03-12T00:00:00.000Z"],
    ]);
    expect(range("3 weeks ago").spans).toEqual([
      ["2024-02-19T00:00:00.000Z", "2024-02-26T00:00:00.000Z"],
    ]);
    expect(range("a month ago").spans).toEqual([
      ["2024-02-01T00:00:00.000Z", "2024-03-01T00:00:00.000Z"],
    ]);
    expect(range("a couple of years ago").spans).toEqual([
      ["2022-01-01T00:00:00.000Z", "2023-01-01T00:00:00.000Z"],
    ]);
    expect(range("in the past 3 days").spans).toEqual([
      ["2024-03-11T00:00:00.000Z", "2024-03-13T10:30:00.001Z"],
    ]);
  });

  it("reads weekdays after a word, the latest one first", () => {
    expect(range("on Monday").spans).toEqual([
      ["2024-03-11T00:00:00.000Z", "2024-03-12T00:00:00.000Z"],
    ]);
    expect(range("on Wednesday").spans).toEqual([
      ["2024-03-13T00:00:00.000Z", "2024-03-14T00:00:00.000Z"],
    ]);
    expect(range("last Wednesday").spans).toEqual([
      ["2024-03-06T00:00:00.000Z", "2024-03-07T00:00:00.000Z"],
    ]);
    expect(range("next Friday").spans).toEqual([
      ["2024-03-15T00:00:00.000Z", "2024-03-16T00:00:00.000Z"],
    ]);
    expect(range("Sunday roast")).toEqual({ text: "Sunday roast", spans: [] });
  });

  it("reads parts of the day", () => {
    expect(range("this morning").spans).toEqual([
      ["2024-03-13T05:00:00.000Z", "2024-03-13T12:00:00.000Z"],
    ]);
    expect(range("yesterday evening").spans).toEqual([
      ["2024-03-12T18:00:00.000Z", "2024-03-13T00:00:00.000Z"],
    ]);
    expect(range("last night").spans).toEqual([
      ["2024-03-12T18:00:00.000Z", "2024-03-13T06:00:00.000Z"],
    ]);
  });

  it("reads words in any case", () => {
    expect(range("What happened Yesterday?")).toEqual({
      text: "What happened ?",
      spans: [["2024-03-12T00:00:00.000Z", "2024-03-13T00:00:00.000Z"]],
    });
    expect(range("LAST MONDAY").spans).toEqual([
      ["2024-03-11T00:00:00.000Z", "2024-03-12T00:00:00.000Z"],
    ]);
  });

  it("stretches a span to now after since", () => {
    expect(range("since May 2023").spans).toEqual([
      ["2023-05-01T00:00:00.000Z", "2024-03-13T10:30:00.001Z"],
    ]);
  });

  it("reads several expressions, in query order", () => {
    const { ranges, text } = readQueryTime("compare March 2023 with in 2021", {
      now: NOW,
    });
    expect(text).toBe("compare with");
    expect(ranges.map((r) => r.phrase)).toEqual(["March 2023", "in 2021"]);
  });

  it("counts days in the given time zone, across a daylight-saving change", () => {
    // 00:30 UTC on the 13th is still the 12th in New York (UTC-4 since 10 March).
    const now = "2024-03-13T00:30:00.000Z";
    expect(
      range("yesterday", { now, timeZone: "America/New_York" }).spans,
    ).toEqual([["2024-03-11T04:00:00.000Z", "2024-03-12T04:00:00.000Z"]]);
    // The 10th of March had 23 hours there.
    expect(
      range("on 10 March", { now, timeZone: "America/New_York" }).spans,
    ).toEqual([["2024-03-10T05:00:00.000Z", "2024-03-11T04:00:00.000Z"]]);
    expect(range("in May 2023", { now, timeZone: "Asia/Tokyo" }).spans).toEqual(
      [["2023-04-30T15:00:00.000Z", "2023-05-31T15:00:00.000Z"]],
    );
  });

  it("defaults now to the current time", () => {
    const { ranges } = readQueryTime("today");
    const since = Date.parse(ranges[0]!.since);
    expect(Date.now() - since).toBeGreaterThanOrEqual(0);
    expect(Date.now() - since).toBeLessThan(86_400_000);
  });

  it("rejects an invalid now, time zone or language with INVALID_ARGUMENT", () => {
    for (const options of [
      { now: "not a date" },
      { now: new Date(Number.NaN) },
      { timeZone: "Mars/Olympus" },
      { languages: ["xx"] },
    ]) {
      let caught: unknown;
      try {
        readQueryTime("yesterday", options);
      } catch (error) {
        caught = error;
      }
      expect(isArborError(caught) && caught.code).toBe("INVALID_ARGUMENT");
    }
  });

  it("leaves a query without time words unchanged", () => {
    expect(readQueryTime("deployment  pipeline", { now: NOW })).toEqual({
      text: "deployment pipeline",
      names: [],
      ranges: [],
    });
  });

  it("names the weekday, month and year words of what it read; relative words name nothing", () => {
    const names = (query: string) => readQueryTime(query, { now: NOW }).names;
    expect(names("when do we deploy on Friday?")).toEqual(["Friday"]);
    expect(names("What did Caroline do in May 2023?")).toEqual(["May", "2023"]);
    expect(names("on 7 May")).toEqual(["May"]);
    expect(names("deploy 2023-05-07")).toEqual(["2023"]);
    expect(names("what did we decide last week, or two days ago?")).toEqual([]);
  });
});
