import { describe, expect, it } from "vitest";
import { withinTimeRange } from "../text/search-options.js";
import { searchWithQueryTime } from "./query-time-search.js";
import type { SearchHit } from "./types.js";

/** A search over fixed hits, newest first, that filters by since/until as a backend does. */
function fakeSearch(hits: SearchHit[], filters = true) {
  const calls: Array<{
    query: string;
    since?: string;
    until?: string;
    alone?: true;
  }> = [];
  const run = async (
    query: string,
    options: { limit: number; since?: string; until?: string; alone?: true },
  ) => {
    calls.push({
      query,
      ...(options.since ? { since: options.since } : {}),
      ...(options.until ? { until: options.until } : {}),
      ...(options.alone ? { alone: options.alone } : {}),
    });
    return hits
      .filter(
        (hit) => !filters || withinTimeRange(hit.createdAt ?? "", options),
      )
      .slice(0, options.limit);
  };
  return { run, calls };
}

const hit = (id: string, createdAt?: string): SearchHit => ({
  id,
  role: "user",
  content: id,
  ...(createdAt ? { createdAt } : {}),
});

const HITS = [
  hit("june", "2023-06-02T00:00:00.000Z"),
  hit("may", "2023-05-07T00:00:00.000Z"),
  hit("april", "2023-04-10T00:00:00.000Z"),
];

describe("searchWithQueryTime", () => {
  it("searches inside the named time first, then without it, and merges without repeats", async () => {
    const { run, calls } = fakeSearch(HITS);
    const hits = await searchWithQueryTime("Caroline in May 2023", {}, run);
    expect(hits.map((h) => [h.id, h.inQueryTime])).toEqual([
      ["may", true],
      ["june", false],
      ["april", false],
    ]);
    expect(calls).toEqual([
      {
        query: "Caroline",
        since: "2023-05-01T00:00:00.000Z",
        until: "2023-06-01T00:00:00.000Z",
      },
      // Without the time, the words that name it stay terms: a message holding "May" matches.
      { query: "Caroline May 2023" },
    ]);
  });

  it('keeps the named words out of a match: "all" search, where every term must match', async () => {
    const { run, calls } = fakeSearch(HITS);
    await searchWithQueryTime("deploy on friday", { match: "all" }, run);
    expect(calls.map((call) => call.query)).toEqual(["deploy", "deploy"]);
  });

  it("runs once, as given, when the query names no time", async () => {
    const { run, calls } = fakeSearch(HITS);
    const hits = await searchWithQueryTime("Caroline", { limit: 2 }, run);
    expect(hits.map((h) => h.id)).toEqual(["june", "may"]);
    expect(calls).toEqual([{ query: "Caroline", alone: true }]);
  });

  it("reorders the fused ranking before cutting it to the limit; the run alone reorders its own", async () => {
    const { run, calls } = fakeSearch(HITS);
    const reversed = async (fused: SearchHit[]) => [...fused].reverse();
    const hits = await searchWithQueryTime(
      "Caroline in May 2023",
      { limit: 2 },
      run,
      reversed,
    );
    // Fused: may, june, april; reversed before the cut.
    expect(hits.map((h) => h.id)).toEqual(["april", "june"]);
    expect(calls.every((call) => call.alone === undefined)).toBe(true);
    const plain = await searchWithQueryTime(
      "Caroline",
      { limit: 2 },
      run,
      reversed,
    );
    expect(plain.map((h) => h.id)).toEqual(["june", "may"]);
  });

  it("cuts the named time to since/until and keeps out hits a ranking let through", async () => {
    // A ranking that ignores since/until, as the ranking by meaning does.
    const { run, calls } = fakeSearch(HITS, false);
    const hits = await searchWithQueryTime(
      "Caroline in 2023",
      { since: "2023-05-01", until: new Date("2023-06-01T00:00:00Z") },
      run,
    );
    expect(hits.map((h) => h.id)).toEqual(["may"]);
    expect(calls[0]).toEqual({
      query: "Caroline",
      since: "2023-05-01T00:00:00.000Z",
      until: "2023-06-01T00:00:00.000Z",
    });
    const plain = await searchWithQueryTime(
      "Caroline",
      { since: "2023-05-01" },
      run,
    );
    expect(plain.map((h) => h.id)).toEqual(["june", "may"]);
  });

  it("keeps a hit without a time, below the named time's hits", async () => {
    const { run } = fakeSearch([hit("untimed"), ...HITS], false);
    const hits = await searchWithQueryTime("Caroline in May 2023", {}, run);
    expect(hits.map((h) => [h.id, h.inQueryTime])).toEqual([
      ["may", true],
      ["untimed", false],
      ["june", false],
      ["april", false],
    ]);
  });

  it("stops at the limit", async () => {
    const { run, calls } = fakeSearch(HITS);
    const hits = await searchWithQueryTime(
      "Caroline in May 2023",
      { limit: 1 },
      run,
    );
    expect(hits.map((h) => h.id)).toEqual(["may"]);
    // Both searches run: the fusion needs the plain ranking to weigh the hits inside.
    expect(calls).toHaveLength(2);
  });

  it("fuses by rank: a hit outside the named time can outrank a weak one inside", async () => {
    const may = (day: number) =>
      hit(`may${day}`, `2023-05-${String(day).padStart(2, "0")}T00:00:00.000Z`);
    // Newest first; the plain search ranks June first and the May ones after it, but not may6:
    // it holds none of the query's words besides the time, so only the search inside May
    // finds it (fourth there).
    const inside = fakeSearch([may(9), may(8), may(7), may(6)]);
    const plain = fakeSearch([
      hit("june", "2023-06-02T00:00:00.000Z"),
      may(9),
      may(8),
      may(7),
    ]);
    const run: typeof inside.run = (query, options) =>
      options.since !== undefined || options.until !== undefined
        ? inside.run(query, options)
        : plain.run(query, options);
    const hits = await searchWithQueryTime(
      "Caroline in May 2023",
      { limit: 5 },
      run,
    );
    // may9-may7 are inside and ranked by both searches; may6 only inside, fourth there: June,
    // first of the plain search, comes before it.
    expect(hits.map((h) => [h.id, h.inQueryTime])).toEqual([
      ["may9", true],
      ["may8", true],
      ["may7", true],
      ["june", false],
      ["may6", true],
    ]);
    // A smaller limit gives the first hits of that ranking (the fused lists are read to a depth
    // that does not depend on it).
    const four = await searchWithQueryTime(
      "Caroline in May 2023",
      { limit: 4 },
      run,
    );
    expect(four.map((h) => h.id)).toEqual(["may9", "may8", "may7", "june"]);
  });
});
