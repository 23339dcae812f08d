// The SQL store's path read (sql-path-read.ts): one backward scan that carries the texts, handing
// a heavily branched rest to the recursive query and its windows, and the kept raw path that
// re-reads and appends decode from. Checked against the parent links followed in JavaScript, over
// random trees on a real SQLite database.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AgentSessionProvider } from "../../src/backends/sql/index.js";
import type { SessionMessage } from "../../src/session/contracts/types.js";
import { openSqlite, type SqliteHandle } from "../../src/sqlite/index.js";

const message = (id: string, body: string): SessionMessage => ({
  id,
  role: "user",
  parts: [{ type: "text", text: body }],
});

/** The path to `leaf`, root first, by the parent links alone. */
function expectedPath(
  parents: ReadonlyMap<string, string | null>,
  leaf: string,
): string[] {
  const path: string[] = [];
  for (let id: string | null = leaf; id !== null; id = parents.get(id) ?? null)
    path.push(id);
  return path.reverse();
}

/** Counts the statements run through `db.sql` whose text matches `pattern`. */
function counting(db: SqliteHandle, pattern: RegExp): { count: number } {
  const counter = { count: 0 };
  const sql = db.sql.bind(db);
  db.sql = (strings: TemplateStringsArray, ...values: unknown[]) => {
    if (pattern.test(strings.join("?"))) counter.count++;
    return sql(strings, ...values);
  };
  return counter;
}

describe("the SQL path read", () => {
  it("reads random trees of two interleaved sessions as their parent links say, afresh, from the kept path and after an append", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            session: fc.constantFrom("a", "b"),
            // How far back the parent is among the session's messages (0 = the newest).
            back: fc.oneof(fc.constant(0), fc.constant(0), fc.nat({ max: 40 })),
            // Mostly short texts; some long enough to shrink the scan's chunks.
            size: fc.oneof(
              fc.nat({ max: 40 }),
              fc.nat({ max: 40 }),
              fc.integer({ min: 2_000, max: 40_000 }),
            ),
          }),
          { minLength: 1, maxLength: 400 },
        ),
        fc.nat(),
        (steps, leafPick) => {
          const db = openSqlite(":memory:");
          const providers = {
            a: new AgentSessionProvider(db, "a"),
            b: new AgentSessionProvider(db, "b"),
          };
          const parents = { a: new Map<string, string | null>(), b: new Map() };
          const texts = new Map<string, string>();
          const order = { a: [] as string[], b: [] as string[] };
          steps.forEach(({ session, back, size }, index) => {
            const ids = order[session];
            const parent =
              ids.length === 0
                ? null
                : ids[Math.max(0, ids.length - 1 - back)]!;
            const id = `${session}${index}`;
            const body = `${id} ${"x".repeat(size)}`;
            providers[session].appendMessage(message(id, body), parent);
            parents[session].set(id, parent);
            texts.set(id, body);
            ids.push(id);
          });
          for (const session of ["a", "b"] as const) {
            const ids = order[session];
            if (ids.length === 0) continue;
            const leaf = ids[leafPick % ids.length]!;
            const want = expectedPath(parents[session], leaf);
            const read = () =>
              providers[session]
                .getHistory(leaf)
                .map((m) => [m.id, m.parts[0]?.text]);
            const wanted = want.map((id) => [id, texts.get(id)]);
            expect(read()).toEqual(wanted);
            // Again: decoded from the kept raw path.
            expect(read()).toEqual(wanted);
            // An append onto the leaf extends the kept path.
            const next = `${session}-next`;
            providers[session].appendMessage(message(next, "next"), leaf);
            expect(
              providers[session].getHistory(next).map((m) => m.id),
            ).toEqual([...want, next]);
          }
          db.close();
        },
      ),
      { numRuns: 60 },
    );
  });

  it("hands a heavily branched path to the recursive query and keeps the root-first order when re-read", () => {
    const db = openSqlite(":memory:");
    const session = new AgentSessionProvider(db, "s");
    // A path of 30 messages, each followed by 20 siblings (dead branches) written after it.
    const path: string[] = [];
    let parent: string | null = null;
    for (let step = 0; step < 30; step++) {
      const id = `p${step}`;
      session.appendMessage(message(id, `path ${step}`), parent);
      for (let sibling = 0; sibling < 20; sibling++)
        session.appendMessage(
          message(`${id}-s${sibling}`, `dead ${sibling}`),
          id,
        );
      path.push(id);
      parent = id;
    }
    const recursive = counting(db, /WITH RECURSIVE path/);
    const ids = () => session.getHistory("p29").map((m) => m.id);
    expect(ids()).toEqual(path);
    expect(recursive.count).toBe(1);
    expect(ids()).toEqual(path);
    expect(recursive.count).toBe(1);
    db.close();
  });

  it("reads a child written before its parent (an import's order) through the recursive query", () => {
    const db = openSqlite(":memory:");
    const session = new AgentSessionProvider(db, "s");
    session.appendMessage(message("root", "root"), null);
    // `late` is the parent of `early` but stored after it.
    db.sql`INSERT INTO assistant_messages (id, session_id, parent_id, role, content)
      VALUES ('early', 's', 'late', 'user', ${JSON.stringify(message("early", "early"))})`;
    db.sql`INSERT INTO assistant_messages (id, session_id, parent_id, role, content)
      VALUES ('late', 's', 'root', 'user', ${JSON.stringify(message("late", "late"))})`;
    session.appendMessage(message("leaf", "leaf"), "early");
    const ids = () => session.getHistory("leaf").map((m) => m.id);
    expect(ids()).toEqual(["root", "late", "early", "leaf"]);
    expect(ids()).toEqual(["root", "late", "early", "leaf"]);
    db.close();
  });

  it("reads a linear conversation in one scan: no window statement, a chunk per ~64 KB of text", () => {
    const db = openSqlite(":memory:");
    const session = new AgentSessionProvider(db, "s");
    for (let index = 0; index < 2_000; index++)
      session.appendMessage(
        message(`m${index}`, `message ${index} ${"y".repeat(100)}`),
      );
    const windows = counting(db, /json_each\(/);
    const chunks = counting(db, /group_concat\(text/);
    const fresh = new AgentSessionProvider(db, "s");
    const history = fresh.getHistory();
    expect(history).toHaveLength(2_000);
    expect(history.at(-1)?.id).toBe("m1999");
    expect(history[0]?.id).toBe("m0");
    expect(windows.count).toBe(0);
    // About 280 KB of stored text: the first chunk of 128 rows, then chunks near 64 KB.
    expect(chunks.count).toBeGreaterThan(3);
    expect(chunks.count).toBeLessThan(10);
    db.close();
  });

  it("walks the table by rowid where the session has it to itself and through the session index where sessions interleave, reading the same path", () => {
    // One database, three sessions: "alone" written in one stretch, "a" and "b" alternating.
    const db = openSqlite(":memory:");
    const alone = new AgentSessionProvider(db, "alone");
    for (let index = 0; index < 1_500; index++)
      alone.appendMessage(message(`s${index}`, `alone ${index}`));
    const a = new AgentSessionProvider(db, "a");
    const b = new AgentSessionProvider(db, "b");
    for (let index = 0; index < 1_500; index++) {
      a.appendMessage(message(`a${index}`, `a ${index}`));
      b.appendMessage(message(`b${index}`, `b ${index}`));
    }
    // A branch in the alone session, so its path skips rows of its own.
    alone.appendMessage(message("fork", "fork"), "s700");
    for (let index = 0; index < 300; index++)
      alone.appendMessage(message(`f${index}`, `fork ${index}`));
    const rowidWalks = counting(db, /assistant_messages NOT INDEXED/);
    const read = (sessionId: string) =>
      new AgentSessionProvider(db, sessionId).getHistory().map((m) => m.id);

    const alonePath = read("alone");
    expect(alonePath.slice(0, 701)).toEqual(
      Array.from({ length: 701 }, (_, index) => `s${index}`),
    );
    expect(alonePath.slice(701)).toEqual([
      "fork",
      ...Array.from({ length: 300 }, (_, index) => `f${index}`),
    ]);
    const afterAlone = rowidWalks.count;
    expect(afterAlone).toBeGreaterThan(0);

    for (const id of ["a", "b"]) {
      const path = read(id);
      expect(path).toHaveLength(1_500);
      expect(path.at(-1)).toBe(`${id}1499`);
      expect(path[0]).toBe(`${id}0`);
    }
    // Every other row is another session's: the index, never the rowid walk.
    expect(rowidWalks.count).toBe(afterAlone);
    db.close();
  });

  it("indexes what a catch-up reads joined: a row that is not JSON is skipped, its neighbours and a split message found", () => {
    const db = openSqlite(":memory:");
    const session = new AgentSessionProvider(db, "s");
    for (let index = 0; index < 50; index++)
      session.appendMessage(message(`m${index}`, `plain ${index} walrus`));
    db.sql`INSERT INTO assistant_messages (id, session_id, parent_id, role, content)
      VALUES ('broken', 's', 'm49', 'user', '{not json walrus')`;
    // Over 1.5 MiB of JSON: stored over continuation rows.
    session.appendMessage(
      message("huge", `narwhal ${"w".repeat(1_700_000)}`),
      "m49",
    );
    session.appendMessage(message("after", "after walrus"), "huge");
    const found = session.searchMessages("walrus", 100).map((hit) => hit.id);
    expect(found).toHaveLength(51);
    expect(found).toContain("after");
    expect(found).not.toContain("broken");
    expect(session.searchMessages("narwhal").map((hit) => hit.id)).toEqual([
      "huge",
    ]);
    db.close();
  });
});
