// SQLite-specific regressions of AgentSessionProvider (over openSqlite / better-sqlite3).
// The shared behaviour is covered by the conformance suite; each case here names the bug it guards.
import {
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Worker } from "node:worker_threads";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AgentSessionProvider } from "../../src/backends/sql/index.js";
import { SCHEMA_VERSION } from "../../src/backends/sql/sql-schema.js";
import type { SqlProvider } from "../../src/session/contracts/sql-provider.js";
import type { SessionMessage } from "../../src/session/contracts/types.js";
import { openSqlite, type SqliteHandle } from "../../src/sqlite/index.js";
import { SRC, transpileGraph } from "./support/transpile-graph.js";

const text = (id: string, body: string, role = "user"): SessionMessage => ({
  id,
  role,
  parts: [{ type: "text", text: body }],
});

function open(sessionId = ""): {
  db: SqliteHandle;
  provider: AgentSessionProvider;
} {
  const db = openSqlite(":memory:");
  return { db, provider: new AgentSessionProvider(db, sessionId) };
}

/** Inserts a chain m0 → m1 → … directly, in one transaction, far faster than appending. */
function insertChain(db: SqliteHandle, count: number, sessionId = ""): void {
  const insert = db.database.prepare(
    "INSERT INTO assistant_messages (id, session_id, parent_id, role, content) VALUES (?, ?, ?, 'user', ?)",
  );
  db.database.transaction(() => {
    for (let index = 0; index < count; index++) {
      const id = `m${index}`;
      insert.run(
        id,
        sessionId,
        index === 0 ? null : `m${index - 1}`,
        JSON.stringify(text(id, `message ${index}`)),
      );
    }
  })();
}

/** Counts the statements run through `db.sql` whose text matches `pattern`, keeping them. */
function countStatements(
  db: SqliteHandle,
  pattern: RegExp,
): {
  readonly count: number;
  calls: Array<{ sql: string; values: unknown[] }>;
} {
  const calls: Array<{ sql: string; values: unknown[] }> = [];
  const run = db.sql.bind(db);
  db.sql = <Row>(strings: TemplateStringsArray, ...values: unknown[]) => {
    const sql = strings.join("?");
    if (pattern.test(sql)) calls.push({ sql, values });
    return run<Row>(strings, ...values);
  };
  return {
    calls,
    get count() {
      return calls.length;
    },
  };
}

/** SQLite's query plan of a statement, one detail line per step. */
function plan(db: SqliteHandle, sql: string, values: unknown[]): string[] {
  return db.database
    .prepare(`EXPLAIN QUERY PLAN ${sql}`)
    .all(
      ...values.map((value) =>
        typeof value === "boolean" ? Number(value) : value,
      ),
    )
    .map((row) => String((row as { detail: string }).detail));
}

/** A store that records every row the provider reads, to prove what it did not read. */
function spy(db: SqliteHandle): {
  agent: SqlProvider;
  rows: Array<Record<string, unknown>>;
  statements: string[];
} {
  const rows: Array<Record<string, unknown>> = [];
  const statements: string[] = [];
  const agent: SqlProvider = {
    sql<Row>(strings: TemplateStringsArray, ...values: unknown[]): Row[] {
      statements.push(strings.join("?"));
      const result = db.sql<Row>(strings, ...values);
      rows.push(...(result as Array<Record<string, unknown>>));
      return result;
    },
    transaction: <T>(fn: () => T): T => db.transaction(fn),
  };
  return { agent, rows, statements };
}

describe("AgentSessionProvider on SQLite", () => {
  it("reads a 100,000-message path whole (the reference stopped at 10,000 steps)", () => {
    const { db, provider } = open();
    provider.getLatestLeaf(); // creates the tables
    insertChain(db, 100_000);
    const history = provider.getHistory();
    expect(history).toHaveLength(100_000);
    expect(history[0]!.id).toBe("m0");
    expect(history.at(-1)!.id).toBe("m99999");
    expect(provider.getPathLength()).toBe(100_000);
    expect(provider.getHistoryRowStats()).toHaveLength(100_000);
    expect(provider.getHistory("m50000")).toHaveLength(50_001);
  });

  it("keeps the same message id in two sessions of one database apart", () => {
    const db = openSqlite(":memory:");
    const first = new AgentSessionProvider(db, "a");
    const second = first.forSession("b");
    expect(first.appendMessage(text("m1", "from a"))).toBe(true);
    expect(second.appendMessage(text("m1", "from b"))).toBe(true);
    expect(second.appendMessage(text("m1", "again"))).toBe(false);
    expect(first.getMessage("m1")!.parts[0]!.text).toBe("from a");
    expect(second.getMessage("m1")!.parts[0]!.text).toBe("from b");
    // A parent that exists only in another session falls back to a root.
    first.appendMessage(text("only-a", "x"));
    second.appendMessage(text("m2", "y"), "only-a");
    expect(second.getHistory("m2").map((m) => m.id)).toEqual(["m2"]);
    expect(first.searchMessages("from").map((hit) => hit.content)).toEqual([
      "from a",
    ]);
    expect(second.storeIdentity).toBe(db);
  });

  it("terminates on a parent cycle written by raw SQL, visiting each id once", async () => {
    const { db, provider } = open();
    provider.appendMessage(text("a", "1"));
    provider.appendMessage(text("b", "2"));
    provider.appendMessage(text("c", "3"));
    db.sql`UPDATE assistant_messages SET parent_id = 'c' WHERE id = 'a'`;
    expect(provider.getHistory("c").map((m) => m.id)).toEqual(["a", "b", "c"]);
    expect(provider.getPathLength("c")).toBe(3);
    expect(provider.getHistoryRowStats("b").map((row) => row.id)).toEqual([
      "c",
      "a",
      "b",
    ]);
    expect(
      (await provider.getRecentHistory("c", 1_000_000)).messages,
    ).toHaveLength(3);
  });

  // The cold walk scans links backwards by seq and hands over to the recursive query when a
  // parent is younger than its child or most rows belong to other branches; both must agree with
  // the links themselves.
  it("walks any tree to the same path in any insertion order (backward scan and recursive query)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 700 }).chain((size) =>
          fc.record({
            // parent[i] < i: "p" picks the previous node (a chain), "r" a random earlier one,
            // "x" a missing id (an orphan, where the path ends).
            links: fc.array(
              fc.tuple(
                fc.constantFrom("p", "p", "p", "r", "x"),
                fc.nat({ max: size }),
              ),
              { minLength: size, maxLength: size },
            ),
            order: fc.shuffledSubarray([...Array(size).keys()], {
              minLength: size,
              maxLength: size,
            }),
            reversed: fc.boolean(),
            leaf: fc.nat({ max: size - 1 }),
          }),
        ),
        ({ links, order, reversed, leaf }) => {
          const { db, provider } = open("s");
          provider.getPathLength(); // creates the tables
          const parents = links.map(([kind, pick], index) =>
            index === 0
              ? null
              : kind === "p"
                ? `m${index - 1}`
                : kind === "r"
                  ? `m${pick % index}`
                  : `gone${index}`,
          );
          // Mostly in creation order (as appends write), else shuffled or reversed.
          const sequence = reversed
            ? [...order.keys()].reverse()
            : order.length % 3 === 0
              ? order
              : [...order.keys()];
          const insert = db.database.prepare(
            "INSERT INTO assistant_messages (id, session_id, parent_id, role, content) VALUES (?, ?, ?, 'user', ?)",
          );
          for (const index of sequence) {
            const id = `m${index}`;
            insert.run(id, "s", parents[index], JSON.stringify(text(id, id)));
            // Another session's rows with the same ids, between this one's.
            if (index % 4 === 0)
              insert.run(id, "t", null, JSON.stringify(text(id, "other")));
          }
          const expected: string[] = [];
          for (let at: string | null = `m${leaf}`; at?.startsWith("m");) {
            expected.unshift(at);
            at = parents[Number(at.slice(1))] ?? null;
          }
          // The id set and the length walk the links the same way, without content (asked
          // first, so no path read is kept that they could reuse).
          const idSet = [...provider.getPathIdSet(`m${leaf}`)];
          const length = provider.getPathLength(`m${leaf}`);
          const path = provider.getHistory(`m${leaf}`).map((m) => m.id);
          db.close();
          expect(path).toEqual(expected);
          expect(idSet.sort()).toEqual([...expected].sort());
          expect(length).toBe(expected.length);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("links each FTS row to its message by rowid = seq and writes no phantom row for an unknown id", () => {
    const { db, provider } = open("s");
    provider.appendMessage(text("u1", "hello world"));
    provider.appendMessage({
      id: "tool",
      role: "assistant",
      parts: [{ type: "tool-x", input: 1 }],
    });
    provider.appendMessage(text("u2", "second"));
    // Appends do not index; the first search catches the index up, then updates re-index in place.
    expect(db.sql`SELECT rowid FROM assistant_fts`).toHaveLength(0);
    expect(provider.searchMessages("second").map((hit) => hit.id)).toEqual([
      "u2",
    ]);
    provider.updateMessage(text("u1", "hello again"));
    provider.updateMessage(text("ghost", "never stored"));
    // The index row holds the text only; its rowid is the link to the message.
    const links = db.sql<{ rowid: number; id: string | null; seq: number }>`
      SELECT f.rowid AS rowid, m.id AS id, m.seq AS seq
      FROM assistant_fts AS f LEFT JOIN assistant_messages AS m ON m.seq = f.rowid ORDER BY f.rowid`;
    // A tool call is indexed by its name and input (`x 1`).
    expect(links.map((link) => link.id)).toEqual(["u1", "tool", "u2"]);
    for (const link of links) expect(link.rowid).toBe(link.seq);
    expect(provider.searchMessages("never")).toEqual([]);
    // Text removed by an update removes the index row (at the next search, like every update).
    provider.updateMessage({ id: "u2", role: "user", parts: [] });
    expect(provider.searchMessages("second")).toEqual([]);
    expect(db.sql`SELECT rowid FROM assistant_fts`).toHaveLength(2);
  });

  it("rolls back an append whose insert fails, leaving no message row", () => {
    const { db, provider } = open();
    provider.appendMessage(text("a", "first"));
    db.sql`CREATE TRIGGER no_b BEFORE INSERT ON assistant_messages WHEN NEW.id = 'b' BEGIN SELECT RAISE(ABORT, 'blocked'); END`;
    expect(() => provider.appendMessage(text("b", "second"))).toThrow(
      "blocked",
    );
    expect(provider.getMessage("b")).toBeNull();
    expect(provider.getLatestLeaf()!.id).toBe("a");
  });

  it("rolls back a clear, a delete with repair and an update when a later statement fails", () => {
    const { db, provider } = open();
    provider.appendMessage(text("a", "alpha"));
    provider.appendMessage(text("b", "beta"));
    provider.appendMessage(text("c", "gamma"));
    provider.addCompaction("summary", "a", "b");
    expect(provider.searchMessages("alpha")).toHaveLength(1);
    db.sql`CREATE TRIGGER no_overlay_delete BEFORE DELETE ON assistant_compactions BEGIN SELECT RAISE(ABORT, 'blocked'); END`;
    db.sql`CREATE TRIGGER no_overlay_update BEFORE UPDATE ON assistant_compactions BEGIN SELECT RAISE(ABORT, 'blocked'); END`;
    expect(() => provider.clearMessages()).toThrow("blocked");
    expect(() => provider.deleteMessages(["b"])).toThrow("blocked");
    expect(provider.getPathLength("c")).toBe(3);
    expect(db.sql`SELECT rowid FROM assistant_fts`).toHaveLength(3);
    expect(provider.searchMessages("beta")).toHaveLength(1);

    db.sql`CREATE TRIGGER no_index BEFORE UPDATE OF content ON assistant_messages WHEN NEW.id = 'c' BEGIN SELECT RAISE(ABORT, 'blocked'); END`;
    expect(() => provider.updateMessage(text("c", "changed"))).toThrow(
      "blocked",
    );
    expect(provider.searchMessages("gamma").map((hit) => hit.id)).toEqual([
      "c",
    ]);
  });

  it("re-reads a cached path after raw SQL, another provider or another connection changed it", () => {
    const dir = mkdtempSync(join(tmpdir(), "arbor-path-cache-"));
    const file = join(dir, "cache.db");
    const db = openSqlite(file);
    const provider = new AgentSessionProvider(db, "s");
    const texts = () => provider.getHistory().map((m) => m.parts[0]?.text);
    provider.appendMessage(text("a", "one"));
    provider.appendMessage(text("b", "two"));
    expect(texts()).toEqual(["one", "two"]);
    // Extended in place by this provider's own append.
    provider.appendMessage(text("c", "three"));
    expect(texts()).toEqual(["one", "two", "three"]);
    // Raw SQL on the same connection.
    db.sql`UPDATE assistant_messages SET content = ${JSON.stringify(text("b", "TWO"))} WHERE id = 'b'`;
    expect(texts()).toEqual(["one", "TWO", "three"]);
    // Another provider over the same store appends under the cached leaf.
    new AgentSessionProvider(db, "s").appendMessage(text("d", "four"));
    expect(texts()).toEqual(["one", "TWO", "three", "four"]);
    expect(provider.getHistory("c").map((m) => m.id)).toEqual(["a", "b", "c"]);
    // Another connection (another process) edits a message.
    const other = openSqlite(file);
    new AgentSessionProvider(other, "s").updateMessage(text("a", "ONE"));
    expect(texts()).toEqual(["ONE", "TWO", "three", "four"]);
    other.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("keeps the cached path across its own appends (the change-log row had dropped it on every append)", () => {
    const { db, provider } = open("s");
    // Both forms of the walk (the backward scan and the recursive query) collect the parent links.
    const walks = countStatements(db, /json_group_array\(parent_id\)/);
    provider.appendMessage(text("a", "one"));
    provider.appendMessage(text("b", "two"));
    expect(provider.getHistory()).toHaveLength(2);
    const afterFirstRead = walks.count;
    expect(afterFirstRead).toBeGreaterThan(0);
    for (const id of ["c", "d", "e"]) {
      provider.appendMessage(text(id, id));
      expect(
        provider
          .getHistory()
          .map((m) => m.id)
          .at(-1),
      ).toBe(id);
    }
    // An agent loop (append, read, append, read) never walks the path again.
    expect(walks.count).toBe(afterFirstRead);
    // A write by anyone else still drops it.
    db.sql`UPDATE assistant_messages SET content = ${JSON.stringify(text("a", "ONE"))} WHERE id = 'a'`;
    expect(provider.getHistory()[0]?.parts[0]).toEqual({
      type: "text",
      text: "ONE",
    });
    expect(walks.count).toBeGreaterThan(afterFirstRead);
  });

  it("deletes a message without walking the whole session's seq index (ORDER BY seq chose it)", () => {
    const { db, provider } = open("s");
    provider.getPathLength(); // creates the tables
    insertChain(db, 2_000, "s");
    const statements = countStatements(db, /./);
    provider.deleteMessages(["m1000"]);
    const calls = [...statements.calls];
    expect(provider.getPathLength()).toBe(1_999);
    const scans = calls
      .filter(({ sql }) => /^\s*(SELECT|WITH)/i.test(sql))
      .flatMap(({ sql, values }) => plan(db, sql, values))
      .filter((detail) =>
        /idx_assistant_messages_session_seq \(session_id=\?\)$|^SCAN assistant_messages/.test(
          detail,
        ),
      );
    expect(scans).toEqual([]);
  });

  it("indexes a catch-up of many batches and large messages, each row once (batched index inserts)", () => {
    const { db, provider } = open("s");
    const filler = "lorem ipsum ".repeat(200); // 2,400 characters: several batches of 512 KB
    for (let index = 0; index < 600; index++)
      provider.appendMessage(text(`m${index}`, `zebra tag${index} ${filler}`));
    provider.appendMessage(text("big", `zebra bigword ${"x".repeat(300_000)}`));
    expect(provider.searchMessages("zebra", 10_000)).toHaveLength(601);
    for (const index of [0, 299, 599])
      expect(
        provider.searchMessages(`tag${index}`).map((hit) => hit.id),
      ).toEqual([`m${index}`]);
    expect(provider.searchMessages("bigword").map((hit) => hit.id)).toEqual([
      "big",
    ]);
    const [count] = db.sql<{ rows: number }>`
      SELECT COUNT(*) AS rows FROM assistant_fts`;
    expect(count?.rows).toBe(601);
  });

  it("picks up rows written by raw SQL or another provider when choosing the latest leaf", () => {
    const { db, provider } = open("s");
    provider.appendMessage(text("a", "1"));
    provider.appendMessage(text("b", "2"));
    expect(provider.getLatestLeaf()!.id).toBe("b");
    db.sql`INSERT INTO assistant_messages (id, session_id, parent_id, role, content)
      VALUES ('raw', 's', 'b', 'user', ${JSON.stringify(text("raw", "3"))})`;
    expect(provider.getLatestLeaf()!.id).toBe("raw");
    provider.appendMessage(text("c", "4"));
    expect(provider.getHistory().map((m) => m.id)).toEqual([
      "a",
      "b",
      "raw",
      "c",
    ]);

    new AgentSessionProvider(db, "s").appendMessage(text("other", "5"), "a");
    expect(provider.getLatestLeaf()!.id).toBe("other");

    // A raw re-parent under the cached leaf leaves MAX(seq) unchanged but gives the leaf a child.
    db.sql`UPDATE assistant_messages SET parent_id = 'other' WHERE id = 'c'`;
    expect(provider.getLatestLeaf()!.id).toBe("c");
    db.sql`DELETE FROM assistant_messages WHERE id = 'c'`;
    expect(provider.getLatestLeaf()!.id).toBe("other");
  });

  it("finds CJK words inside sentences and Russian word forms", () => {
    const { provider } = open();
    provider.appendMessage(text("ja", "本番環境へのデプロイは金曜日です"));
    provider.appendMessage(text("zh", "用户喜欢喝咖啡"));
    provider.appendMessage(text("ko", "회의는 목요일입니다"));
    provider.appendMessage(text("ru", "Развёртывание назначено на пятницу"));
    provider.appendMessage(text("en", "Deployment is on Friday"));
    const ids = (query: string, match?: "all") =>
      provider
        .searchMessages(query, undefined, match ? { match } : undefined)
        .map((hit) => hit.id);
    expect(ids("金曜日")).toEqual(["ja"]);
    expect(ids("金")).toEqual(["ja"]);
    expect(ids("咖啡")).toEqual(["zh"]);
    expect(ids("목요일")).toEqual(["ko"]);
    expect(ids("пятницу")).toEqual(["ru"]);
    expect(ids("ПЯТНИЦУ")).toEqual(["ru"]);
    expect(ids("friday deploy", "all")).toEqual([]);
    expect(ids("friday deploy")).toEqual(["en"]);
    expect(ids("friday deployment", "all")).toEqual(["en"]);
    expect(ids("金曜日 friday", "all")).toEqual([]);
    expect(ids("金曜日 friday").sort()).toEqual(["en", "ja"]);
    const [hit] = provider.searchMessages("デプロイ");
    expect(hit).toMatchObject({
      id: "ja",
      role: "user",
      content: "本番環境へのデプロイは金曜日です",
    });
    expect(hit!.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it("orders equal-rank hits newest first and honours the limit", () => {
    const { provider } = open();
    for (let index = 0; index < 30; index++)
      provider.appendMessage(text(`m${index}`, "same words"));
    expect(provider.searchMessages("same", 3).map((hit) => hit.id)).toEqual([
      "m29",
      "m28",
      "m27",
    ]);
    expect(provider.searchMessages("same", 0)).toHaveLength(20);
    expect(provider.searchMessages("same", 2.5)).toHaveLength(20);
  });

  it("never throws on queries full of FTS5 operator characters", () => {
    const { provider } = open();
    provider.appendMessage(
      text("a", 'deploy "quoted" NEAR(x y) a*b ^start col:value OR AND NOT'),
    );
    const operators = fc.constantFrom(
      '"',
      "'",
      "*",
      "^",
      ":",
      "(",
      ")",
      "-",
      "+",
      "{",
      "}",
      "NEAR",
      "OR",
      "AND",
      "NOT",
      " ",
      ",",
      ".",
      "金",
      "\u0000",
      "deploy",
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.array(operators).map((parts) => parts.join("")),
        ),
        (query) => {
          expect(Array.isArray(provider.searchMessages(query))).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
    expect(provider.searchMessages("")).toEqual([]);
    expect(provider.searchMessages("   ")).toEqual([]);
    expect(provider.searchMessages("NEAR(x").map((hit) => hit.id)).toEqual([
      "a",
    ]);
    expect(provider.searchMessages("!!! ---")).toEqual([]);
    expect(provider.searchMessages('"1e9(\u0000')).toEqual([]);
    expect(
      provider.searchMessages("deploy\u0000quoted").map((hit) => hit.id),
    ).toEqual(["a"]);
    expect(provider.searchMessages("OR").map((hit) => hit.id)).toEqual(["a"]);
  });

  it("repairs the tree on an interior delete and removes the index rows", () => {
    const { db, provider } = open();
    for (const id of ["a", "b", "c", "d"])
      provider.appendMessage(text(id, `word ${id}`));
    expect(provider.searchMessages("word")).toHaveLength(4);
    const overlay = provider.addCompaction("sum", "b", "c");
    provider.deleteMessages(["b"]);
    expect(provider.getHistory().map((m) => m.id)).toEqual([
      "a",
      "compaction_" + overlay.id,
      "d",
    ]);
    expect(provider.getCompactions()[0]).toMatchObject({
      fromMessageId: "c",
      toMessageId: "c",
    });
    provider.deleteMessages(["d"]);
    expect(provider.getLatestLeaf()!.id).toBe("c");
    // Deletes mark index rows stale; the next search removes them.
    expect(
      provider
        .searchMessages("word")
        .map((hit) => hit.id)
        .sort(),
    ).toEqual(["a", "c"]);
    expect(db.sql`SELECT rowid FROM assistant_fts`).toHaveLength(2);
    expect(provider.deleteCompaction(overlay.id)).toBe(true);
    expect(provider.deleteCompaction(overlay.id)).toBe(false);
  });

  it("reads no content outside the recent window, and skips unparseable rows without losing their size", async () => {
    const { db, provider } = open();
    const big = "x".repeat(1_000);
    for (let index = 0; index < 10; index++)
      provider.appendMessage(text(`m${index}`, `${index}:${big}`));
    db.sql`UPDATE assistant_messages SET content = '{broken' WHERE id = 'm9'`;
    const watched = spy(db);
    const recent = await new AgentSessionProvider(
      watched.agent,
    ).getRecentHistory(null, 2_500, 1);
    expect(recent.truncated).toBe(true);
    expect(recent.messages.map((m) => m.id)).toEqual(["m7", "m8"]);
    const contents = watched.rows
      .map((row) => row.content)
      .filter((content) => typeof content === "string");
    expect(contents).toHaveLength(3);
    const stats = provider.getHistoryRowStats();
    expect(stats.at(-1)).toEqual({ id: "m9", role: "user", bytes: 7 });
    expect(recent.totalContentBytes).toBe(
      stats.reduce((sum, row) => sum + row.bytes, 0),
    );
    expect(provider.getHistory().map((m) => m.id)).not.toContain("m9");
  });

  it("measures the same UTF-8 sizes on SQLite builds without octet_length (before 3.43)", () => {
    const db = openSqlite(":memory:");
    const old: SqlProvider = {
      sql<Row>(strings: TemplateStringsArray, ...values: unknown[]): Row[] {
        if (strings.join("?").includes("octet_length"))
          throw new Error("no such function: octet_length");
        return db.sql<Row>(strings, ...values);
      },
      transaction: <T>(fn: () => T): T => db.transaction(fn),
    };
    const modern = new AgentSessionProvider(db);
    modern.appendMessage(text("a", "héllo 金曜日"));
    modern.appendMessage(text("b", "ascii"));
    const stats = modern.getHistoryRowStats();
    expect(stats[0]!.bytes).toBe(
      Buffer.byteLength(JSON.stringify(text("a", "héllo 金曜日"))),
    );
    expect(new AgentSessionProvider(old).getHistoryRowStats()).toEqual(stats);
  });

  it("runs the DDL once per store object, however many providers use it", () => {
    const db = openSqlite(":memory:");
    const watched = spy(db);
    for (let index = 0; index < 5; index++)
      new AgentSessionProvider(watched.agent, `s${index}`).getHistory();
    expect(
      watched.statements.filter((statement) => /CREATE/i.test(statement))
        .length,
    ).toBeLessThanOrEqual(20);
    const creates = watched.statements.length;
    new AgentSessionProvider(watched.agent, "again").getHistory();
    expect(
      watched.statements
        .slice(creates)
        .some((statement) => /CREATE/i.test(statement)),
    ).toBe(false);
  });

  it("refuses a store whose schema version is newer than this build", () => {
    const db = openSqlite(":memory:");
    db.sql`CREATE TABLE arbor_meta (key TEXT PRIMARY KEY, value TEXT)`;
    db.sql`INSERT INTO arbor_meta VALUES ('session_schema_version', '999')`;
    expect(() => new AgentSessionProvider(db).getHistory()).toThrow(
      expect.objectContaining({ code: "SCHEMA_VERSION" }),
    );
  });

  it("exports every branch in insertion order with ISO times", () => {
    const { provider } = open();
    provider.appendMessage(text("a", "1"));
    provider.appendMessage(text("b", "2"));
    provider.appendMessage(text("c", "3"), "a");
    const records = provider.exportMessages();
    expect(
      records.map((record) => [record.message.id, record.parentId]),
    ).toEqual([
      ["a", null],
      ["b", "a"],
      ["c", "a"],
    ]);
    expect(provider.getBranches("a").map((m) => m.id)).toEqual(["b", "c"]);
    for (const record of records) expect(record.createdAt).toMatch(/Z$/);
  });
});

describe("AgentSessionProvider across processes", () => {
  it("chains concurrent appends from several connections instead of forking", async () => {
    const scratch = mkdtempSync(join(tmpdir(), "arbor-append-"));
    try {
      // The sources, transpiled, next to a node_modules link so better-sqlite3 resolves.
      for (const entry of ["backends/sql/index.ts", "sqlite/index.ts"]) {
        for (const [path, contents] of transpileGraph(new URL(entry, SRC))) {
          mkdirSync(dirname(join(scratch, path)), { recursive: true });
          writeFileSync(join(scratch, path), contents);
        }
      }
      writeFileSync(join(scratch, "package.json"), '{ "type": "module" }');
      symlinkSync(
        new URL("../../node_modules", import.meta.url).pathname,
        join(scratch, "node_modules"),
      );
      writeFileSync(
        join(scratch, "append.js"),
        `import { workerData } from "node:worker_threads";
        import { AgentSessionProvider } from "./backends/sql/index.js";
        import { openSqlite } from "./sqlite/index.js";
        const db = openSqlite(workerData.file);
        const provider = new AgentSessionProvider(db, "s");
        for (let index = 0; index < workerData.count; index++) {
          provider.appendMessage({ id: workerData.name + "-" + index, role: "user", parts: [{ type: "text", text: "x" }] });
        }
        db.close();`,
      );
      const file = join(scratch, "shared.db");
      new AgentSessionProvider(openSqlite(file)).getLatestLeaf(); // schema first
      const workers = ["w1", "w2", "w3"].map(
        (name) =>
          new Promise<void>((resolve, reject) => {
            const worker = new Worker(join(scratch, "append.js"), {
              workerData: { file, name, count: 300 },
            });
            worker.on("error", reject);
            worker.on("exit", (code) =>
              code === 0 ? resolve() : reject(new Error(`exit ${code}`)),
            );
          }),
      );
      await Promise.all(workers);

      const db = openSqlite(file);
      const provider = new AgentSessionProvider(db, "s");
      const records = provider.exportMessages();
      expect(records).toHaveLength(900);
      records.forEach((record, index) =>
        expect(record.parentId).toBe(records[index - 1]?.message.id ?? null),
      );
      expect(provider.getPathLength()).toBe(900);
      db.close();
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

describe("legacy (agents@0.22) databases", () => {
  it("are migrated in one transaction: seq in created_at/rowid order, ISO times, rebuilt indexes", () => {
    const db = openSqlite(":memory:");
    db.sql`CREATE TABLE assistant_messages (id TEXT PRIMARY KEY, session_id TEXT NOT NULL DEFAULT '', parent_id TEXT,
      role TEXT NOT NULL, content TEXT NOT NULL, created_at DATETIME DEFAULT CURRENT_TIMESTAMP)`;
    db.sql`CREATE INDEX idx_assistant_msg_parent ON assistant_messages(parent_id)`;
    db.sql`CREATE INDEX idx_assistant_msg_session ON assistant_messages(session_id)`;
    db.sql`CREATE TABLE assistant_compactions (id TEXT PRIMARY KEY, session_id TEXT NOT NULL DEFAULT '', summary TEXT NOT NULL,
      from_message_id TEXT NOT NULL, to_message_id TEXT NOT NULL, created_at DATETIME DEFAULT CURRENT_TIMESTAMP)`;
    db.sql`CREATE VIRTUAL TABLE assistant_fts USING fts5(id UNINDEXED, session_id UNINDEXED, role UNINDEXED, content, tokenize='porter unicode61')`;
    db.sql`CREATE TABLE cf_agents_search_entries (label TEXT NOT NULL, key TEXT NOT NULL, content TEXT NOT NULL,
      created_at DATETIME DEFAULT CURRENT_TIMESTAMP, updated_at DATETIME DEFAULT CURRENT_TIMESTAMP, PRIMARY KEY (label, key))`;
    db.sql`CREATE VIRTUAL TABLE cf_agents_search_fts USING fts5(label UNINDEXED, key UNINDEXED, content, tokenize='porter unicode61')`;
    const rows: Array<[string, string | null, string, string]> = [
      ["u1", null, "2026-11-29 20:25:21", "金曜日にデプロイします"],
      ["a1", "u1", "2026-11-29 20:25:21", "ok"],
      ["u0", null, "2026-11-29 20:25:20", "earlier root"],
    ];
    for (const [id, parent, at, body] of rows) {
      db.sql`INSERT INTO assistant_messages (id, session_id, parent_id, role, content, created_at)
        VALUES (${id}, 's', ${parent}, 'user', ${JSON.stringify(text(id, body))}, ${at})`;
    }
    db.sql`INSERT INTO assistant_fts (rowid, id, session_id, role, content) VALUES (77, 'ghost', 's', 'user', 'phantom')`;
    db.sql`INSERT INTO assistant_compactions (id, session_id, summary, from_message_id, to_message_id, created_at)
      VALUES ('o1', 's', 'sum', 'u1', 'a1', '2026-11-29 20:25:22')`;
    db.sql`INSERT INTO cf_agents_search_entries (label, key, content, created_at, updated_at)
      VALUES ('kb', 'b', 'second', '2026-11-29 20:25:21', '2026-11-29 20:25:21'), ('kb', 'a', '咖啡 notes', '2026-11-29 20:25:20', '2026-11-29 20:25:23')`;

    db.sql`CREATE TABLE cf_agents_context_blocks (label TEXT PRIMARY KEY, content TEXT NOT NULL, updated_at DATETIME DEFAULT CURRENT_TIMESTAMP)`;
    db.sql`INSERT INTO cf_agents_context_blocks VALUES ('memory', 'x', '2026-11-29 20:25:24')`;
    db.sql`CREATE TABLE assistant_sessions (id TEXT PRIMARY KEY, name TEXT NOT NULL, created_at DATETIME DEFAULT CURRENT_TIMESTAMP, updated_at DATETIME DEFAULT CURRENT_TIMESTAMP)`;
    db.sql`INSERT INTO assistant_sessions VALUES ('s', 'chat', '2026-11-29 20:25:19', '2026-11-29 20:25:25')`;

    const provider = new AgentSessionProvider(db, "s");
    expect(
      provider
        .exportMessages()
        .map((record) => [record.message.id, record.createdAt]),
    ).toEqual([
      ["u0", "2026-11-29T20:25:20.000Z"],
      ["u1", "2026-11-29T20:25:21.000Z"],
      ["a1", "2026-11-29T20:25:21.000Z"],
    ]);
    expect(provider.getLatestLeaf()!.id).toBe("a1");
    expect(provider.getCompactions()).toEqual([
      {
        id: "o1",
        summary: "sum",
        fromMessageId: "u1",
        toMessageId: "a1",
        createdAt: "2026-11-29T20:25:22.000Z",
      },
    ]);
    expect(provider.searchMessages("金曜日").map((hit) => hit.id)).toEqual([
      "u1",
    ]);
    expect(provider.searchMessages("phantom")).toEqual([]);
    expect(
      db.sql`SELECT value FROM arbor_meta WHERE key = 'session_schema_version'`,
    ).toEqual([{ value: String(SCHEMA_VERSION) }]);
    expect(
      db.sql`SELECT seq, key, created_at, updated_at FROM cf_agents_search_entries ORDER BY seq`,
    ).toEqual([
      {
        seq: 1,
        key: "a",
        created_at: "2026-11-29T20:25:20.000Z",
        updated_at: "2026-11-29T20:25:23.000Z",
      },
      {
        seq: 2,
        key: "b",
        created_at: "2026-11-29T20:25:21.000Z",
        updated_at: "2026-11-29T20:25:21.000Z",
      },
    ]);
    expect(
      db.sql`SELECT rowid FROM cf_agents_search_fts WHERE cf_agents_search_fts MATCH '"咖 啡"'`,
    ).toEqual([{ rowid: 1 }]);
    expect(db.sql`SELECT updated_at FROM cf_agents_context_blocks`).toEqual([
      { updated_at: "2026-11-29T20:25:24.000Z" },
    ]);
    expect(
      db.sql`SELECT created_at, updated_at FROM assistant_sessions`,
    ).toEqual([
      {
        created_at: "2026-11-29T20:25:19.000Z",
        updated_at: "2026-11-29T20:25:25.000Z",
      },
    ]);
    // New ids in another session no longer collide with the old global key.
    expect(provider.forSession("t").appendMessage(text("u1", "again"))).toBe(
      true,
    );
  });
});
