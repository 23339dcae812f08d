import type { Session } from "../../session/facade/session.js";
import { textMessage } from "../fixtures.js";
import { caught } from "../helpers.js";
import type { ManagerSuite } from "../manager-suite.js";
import type { Suite } from "../suite.js";

/** Turns written at chosen times (as an import keeps them): id, parent, time, role, text. */
const DIARY: ReadonlyArray<[string, string | null, string, string, string]> = [
  ["d1", null, "2023-04-10T09:00:00.000Z", "user", "Caroline went hiking"],
  [
    "d2",
    "d1",
    "2023-05-06T23:30:00.000Z",
    "user",
    "Caroline went to the parade",
  ],
  [
    "d3",
    "d2",
    "2023-05-20T12:00:00.000Z",
    "assistant",
    "Caroline sounds happy",
  ],
  ["d4", "d3", "2023-06-02T08:00:00.000Z", "user", "Caroline painted a lake"],
];

/** Where the diary's relative times count from: a Wednesday. */
const NOW = "2023-06-07T10:00:00.000Z";

async function writeDiary(session: Session): Promise<void> {
  for (const [id, parentId, createdAt, role, text] of DIARY)
    await session.importMessage(textMessage(id, text, role), {
      parentId,
      createdAt,
    });
}

/**
 * Time in search (docs/search.md#time-in-a-query) and the turns around a hit
 * (docs/search.md#context-around-a-hit), through the Session on every backend.
 */
export function searchTimeSpec(rootSuite: Suite): void {
  const suite = rootSuite.withLayer("session");
  const { expect } = suite;
  const search = { search: true } as const;

  suite.describe("search: time and context", () => {
    suite.it(
      "a date named in the query ranks that time's turns first and keeps the others",
      async ({ session }) => {
        const running = session();
        await writeDiary(running);
        const hits = await running.search("Caroline in May 2023", {
          now: NOW,
        });
        expect(
          hits
            .slice(0, 2)
            .map((hit) => hit.id)
            .sort(),
        ).toEqual(["d2", "d3"]);
        expect(hits.map((hit) => hit.id).sort()).toEqual([
          "d1",
          "d2",
          "d3",
          "d4",
        ]);
        expect(hits.map((hit) => [hit.id, hit.inQueryTime]).sort()).toEqual([
          ["d1", false],
          ["d2", true],
          ["d3", true],
          ["d4", false],
        ]);
        const d2 = hits.find((hit) => hit.id === "d2");
        expect(d2?.createdAt).toBe("2023-05-06T23:30:00.000Z");
        // The question as asked: the same two turns first.
        const asked = await running.search(
          "What did Caroline do in May 2023?",
          {
            now: NOW,
          },
        );
        expect(
          asked
            .slice(0, 2)
            .map((hit) => hit.id)
            .sort(),
        ).toEqual(["d2", "d3"]);
        // The time words are not terms: no turn holds "May" or "2023".
        expect(
          (await running.search("in May 2023 Caroline", { now: NOW })).length,
        ).toBe(4);
      },
      { requires: search },
    );

    suite.it(
      "finds the named time's turns however many newer turns match the words",
      async ({ session }) => {
        const running = session();
        await writeDiary(running);
        // 300 newer turns with the same words, written now: more than any rank window.
        await running.appendAll(
          Array.from({ length: 300 }, (_, i) =>
            textMessage(`n${i}`, `Caroline went out again, note ${i}`),
          ),
        );
        const hits = await running.search("Caroline went in May 2023", {
          now: NOW,
          limit: 3,
        });
        // Both May turns first (d2 holds both words, d3 only the name), then a turn of another
        // time (a newer one, or d1 when every match is ranked: both words are rare enough).
        expect(
          hits
            .slice(0, 2)
            .map((hit) => hit.id)
            .sort(),
        ).toEqual(["d2", "d3"]);
        expect(hits.map((hit) => hit.inQueryTime)).toEqual([true, true, false]);
      },
      { requires: search },
    );

    suite.it(
      "relative times count from now, in the given time zone",
      async ({ session }) => {
        const running = session();
        await writeDiary(running);
        // Last week of 2023-06-07 (a Wednesday) is 29 May – 4 June: d4.
        const lastWeek = await running.search("Caroline last week", {
          now: NOW,
        });
        expect(lastWeek[0]?.id).toBe("d4");
        expect(lastWeek[0]?.inQueryTime).toBe(true);
        // 23:30 UTC on 6 May is already 7 May in Lisbon (UTC+1 in summer), not in UTC.
        const lisbon = await running.search("Caroline on 7 May 2023", {
          now: NOW,
          timeZone: "Europe/Lisbon",
        });
        expect(lisbon[0]?.id).toBe("d2");
        expect(lisbon[0]?.inQueryTime).toBe(true);
        const utc = await running.search("Caroline on 7 May 2023", {
          now: NOW,
        });
        expect(utc.every((hit) => hit.inQueryTime === false)).toBe(true);
      },
      { requires: search },
    );

    suite.it(
      "since and until filter, and a date in the query ranks within them",
      async ({ session }) => {
        const running = session();
        await writeDiary(running);
        const hits = await running.search("Caroline", {
          since: "2023-05-01T00:00:00.000Z",
          until: new Date("2023-06-01T00:00:00.000Z"),
        });
        expect(hits.map((hit) => hit.id).sort()).toEqual(["d2", "d3"]);
        const ranked = await running.search("Caroline on 20 May 2023", {
          now: NOW,
          since: "2023-05-01",
        });
        expect(ranked[0]?.id).toBe("d3");
        expect(ranked.map((hit) => hit.id).sort()).toEqual(["d2", "d3", "d4"]);
        // A named time outside the filter boosts nothing and drops nothing the filter keeps.
        const outside = await running.search("Caroline in April 2023", {
          now: NOW,
          since: "2023-05-01",
        });
        expect(outside.map((hit) => hit.id).sort()).toEqual(["d2", "d3", "d4"]);
        expect(outside.every((hit) => hit.inQueryTime === false)).toBe(true);
      },
      { requires: search },
    );

    suite.it(
      "context: n adds the n turns before and after each hit on its branch",
      async ({ session }) => {
        const running = session();
        await writeDiary(running);
        const [hit] = await running.search("parade", { context: 1 });
        expect(hit?.id).toBe("d2");
        expect(hit?.context).toEqual({
          before: [
            {
              id: "d1",
              role: "user",
              createdAt: "2023-04-10T09:00:00.000Z",
              text: "Caroline went hiking",
            },
          ],
          after: [
            {
              id: "d3",
              role: "assistant",
              createdAt: "2023-05-20T12:00:00.000Z",
              text: "Caroline sounds happy",
            },
          ],
        });
        const [wide] = await running.search("parade", { context: 5 });
        expect(wide?.context?.before.map((turn) => turn.id)).toEqual(["d1"]);
        expect(wide?.context?.after.map((turn) => turn.id)).toEqual([
          "d3",
          "d4",
        ]);
        // Without context, no context field.
        const [bare] = await running.search("parade");
        expect(bare?.context).toBe(undefined);
      },
      { requires: search },
    );

    suite.it(
      "context follows the hit's own branch and cuts long turns",
      async ({ session }) => {
        const running = session();
        await writeDiary(running);
        // A second answer to d2: the newest branch, so d3 and d4 are off it.
        await running.importMessage(
          textMessage(
            "e3",
            `Another answer ${"word ".repeat(200)}`,
            "assistant",
          ),
          { parentId: "d2", createdAt: "2023-05-08T00:00:00.000Z" },
        );
        await running.importMessage(textMessage("e4", "A branch question"), {
          parentId: "e3",
          createdAt: "2023-05-09T00:00:00.000Z",
        });
        const [onBranch] = await running.search("branch", { context: 2 });
        expect(onBranch?.id).toBe("e4");
        expect(onBranch?.context?.before.map((turn) => turn.id)).toEqual([
          "d2",
          "e3",
        ]);
        expect(onBranch?.context?.after).toEqual([]);
        const cut = onBranch?.context?.before[1]?.text ?? "";
        expect(cut.length <= 400).toBe(true);
        expect(cut.endsWith("…")).toBe(true);
        const [offBranch] = await running.search("lake", { context: 2 });
        expect(offBranch?.context?.before.map((turn) => turn.id)).toEqual([
          "d2",
          "d3",
        ]);
        // From d2 the newest branch is followed: e3, then e4.
        const [parade] = await running.search("parade", { context: 2 });
        expect(parade?.context?.after.map((turn) => turn.id)).toEqual([
          "e3",
          "e4",
        ]);
        // After switchBranch(), the active branch is followed instead.
        await running.switchBranch("d4");
        const [switched] = await running.search("parade", { context: 2 });
        expect(switched?.context?.after.map((turn) => turn.id)).toEqual([
          "d3",
          "d4",
        ]);
      },
      { requires: search },
    );

    suite.it(
      "rejects a bad context, now or timeZone with INVALID_ARGUMENT",
      async ({ session }) => {
        const running = session();
        await writeDiary(running);
        for (const options of [
          { context: -1 },
          { context: 11 },
          { context: 1.5 },
          { now: "not a time" },
          { timeZone: "Mars/Olympus" },
        ])
          expect(
            codeOf(await caught(() => running.search("Caroline", options))),
          ).toBe("INVALID_ARGUMENT");
      },
      { requires: search },
    );
  });
}

/** The same across sessions: `manager.search()` names each hit's session and places it in time. */
export function managerSearchTimeSpec(suite: ManagerSuite): void {
  const { expect } = suite;
  suite.describe("search: time, session names and context", () => {
    suite.it(
      "every hit carries its time and session name; query time and context work across sessions",
      async (store) => {
        const manager = store.manager();
        const spring = await manager.create("spring diary");
        const summer = await manager.create("summer diary");
        const springSession = manager.getSession(spring.id);
        const summerSession = manager.getSession(summer.id);
        await writeDiary(springSession);
        await summerSession.importMessage(
          textMessage("s1", "Which trip was best?"),
          { parentId: null, createdAt: "2023-07-01T10:00:00.000Z" },
        );
        await summerSession.importMessage(
          textMessage("s2", "Caroline loved the July trip", "assistant"),
          { parentId: "s1", createdAt: "2023-07-01T10:01:00.000Z" },
        );
        const hits = await manager.search("Caroline in July 2023", {
          now: NOW,
          context: 1,
        });
        expect(hits[0]?.id).toBe("s2");
        expect(hits[0]?.sessionName).toBe("summer diary");
        expect(hits[0]?.createdAt).toBe("2023-07-01T10:01:00.000Z");
        expect(hits[0]?.context?.before.map((turn) => turn.id)).toEqual(["s1"]);
        expect(hits.map((hit) => hit.id).sort()).toEqual([
          "d1",
          "d2",
          "d3",
          "d4",
          "s2",
        ]);
        for (const hit of hits.slice(1))
          expect([hit.sessionName, hit.inQueryTime]).toEqual([
            "spring diary",
            false,
          ]);
        const filtered = await manager.search("Caroline", {
          since: "2023-06-01",
          until: "2023-07-01T10:00:30Z",
        });
        expect(filtered.map((hit) => hit.id)).toEqual(["d4"]);
        expect(
          codeOf(await caught(() => manager.search("x", { context: 99 }))),
        ).toBe("INVALID_ARGUMENT");
      },
    );

    suite.it(
      "session_search answers a temporal question with each hit's session, time and neighbours",
      async (store) => {
        const manager = store.manager();
        const spring = await manager.create("spring diary");
        await writeDiary(manager.getSession(spring.id));
        const { session_search: tool } = await manager.tools({
          timeZone: "Europe/Lisbon",
        });
        // The tool reads the query's time at the call: a date with its year names one time.
        const answer = await tool.execute({
          query: "Caroline on 7 May 2023",
        });
        const [first] = answer.split("\n\n");
        expect(first).toBe(
          [
            '#1 · session "spring diary" · 2023-05-06 23:30 UTC · user · id d2',
            "    user (2023-04-10 09:00 UTC): Caroline went hiking",
            "  > «Caroline» went to the parade",
            "    assistant (2023-05-20 12:00 UTC): Caroline sounds happy",
          ].join("\n"),
        );
        const ranged = await tool.execute({
          query: "Caroline",
          since: "2023-06-01",
        });
        expect(ranged.split("\n\n")).toHaveLength(1);
        expect(
          ranged.startsWith('#1 · session "spring diary" · 2023-06-02'),
        ).toBe(true);
        expect(
          (
            await tool.execute({
              query: "Caroline",
              since: "last spring",
            })
          ).startsWith("Error: "),
        ).toBe(true);
      },
    );
  });
}

// --- Internal helpers ---

function codeOf(error: unknown): unknown {
  return typeof error === "object" && error !== null && "code" in error
    ? error.code
    : undefined;
}
