// The SQL store's recent-history window (sql-recent-path.ts): read from the leaf upward as far as
// the budget needs, the same window as the one chosen on the whole path, and only the window's
// rows brought into JavaScript, not the path's.
import { describe, expect, it } from "vitest";
import { AgentSessionProvider } from "../../src/backends/sql/index.js";
import { openSqlite, type SqliteHandle } from "../../src/sqlite/index.js";
import { checkRecentWindowsAgainstWholePath } from "./support/recent-window-cases.js";

/** Counts the rows the store hands to JavaScript through `db.sql`. */
function countingRows(db: SqliteHandle): { rows: number } {
  const counter = { rows: 0 };
  const sql = db.sql.bind(db);
  db.sql = <Row>(strings: TemplateStringsArray, ...values: unknown[]) => {
    const rows = sql<Row>(strings, ...values);
    counter.rows += rows.length;
    return rows;
  };
  return counter;
}

/** A store holding one chain of `length` messages of about 100 bytes each, `m0` the root. */
function chainOf(length: number): {
  db: SqliteHandle;
  provider: AgentSessionProvider;
} {
  const db = openSqlite(":memory:");
  const provider = new AgentSessionProvider(db, "s");
  let parent: string | null = null;
  for (let index = 0; index < length; index++) {
    const id = `m${index}`;
    provider.appendMessage(
      {
        id,
        role: "user",
        parts: [{ type: "text", text: `${id} ${"x".repeat(100)}` }],
      },
      parent,
    );
    parent = id;
  }
  return { db, provider };
}

describe("the SQL store's recent-history window", () => {
  it("is the window of the whole path, overlays, floors and truncation included, on random trees", async () => {
    await checkRecentWindowsAgainstWholePath(() => {
      const db = openSqlite(":memory:");
      return {
        provider: new AgentSessionProvider(db, "s"),
        close: () => db.close(),
      };
    }, 150);
  });

  it("brings the window's rows into JavaScript, not the whole path's", async () => {
    const { db, provider } = chainOf(3_000);
    const counter = countingRows(db);
    const recent = await provider.getRecentHistory("m2999", 2_000, 1);
    expect(recent.truncated).toBe(true);
    expect(recent.messages.at(-1)?.id).toBe("m2999");
    expect(recent.messages.length).toBeGreaterThan(5);
    expect(recent.messages.length).toBeLessThan(20);
    // The path's total still counts all 3,000 rows, read as one sum.
    expect(recent.totalContentBytes).toBeGreaterThan(3_000 * 100);
    expect(counter.rows).toBeLessThan(100);
    db.close();
  });

  it("ends the path at a cycle written by raw SQL, as the whole-path read does", async () => {
    const { db, provider } = chainOf(50);
    db.sql`UPDATE assistant_messages SET parent_id = 'm40' WHERE id = 'm0'`;
    for (const maxBytes of [500, 100_000]) {
      const recent = await provider.getRecentHistory("m49", maxBytes, 1);
      const rows = provider.getHistoryRowStats("m49");
      expect(recent.messages.map((m) => m.id)).toEqual(
        rows.slice(-recent.messages.length).map((row) => row.id),
      );
      expect(recent.truncated).toBe(recent.messages.length < rows.length);
      expect(recent.totalContentBytes).toBe(
        rows.reduce((sum, row) => sum + row.bytes, 0),
      );
    }
    db.close();
  });
});
