// The usual append on a SQL store (sql-writes.ts `appendOnLeaf`): one statement under the cached
// latest leaf, without RETURNING or ON CONFLICT, that refuses (writing nothing) when the leaf has
// moved or the id is taken, after which the full statement resolves the parent and reports it.
// On a real SQLite database, with two providers over one store standing in for two processes.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AgentSessionProvider } from "../../src/backends/sql/index.js";
import type { SqlProvider } from "../../src/session/contracts/sql-provider.js";
import type { SessionMessage } from "../../src/session/contracts/types.js";
import { Session } from "../../src/session/index.js";
import { openSqlite, type SqliteHandle } from "../../src/sqlite/index.js";

const message = (id: string): SessionMessage => ({
  id,
  role: "user",
  parts: [{ type: "text", text: `text of ${id}` }],
});

/** The leaf statement: an insert of the message table without RETURNING. */
const LEAF_STATEMENT = /^\s*INSERT INTO assistant_messages(?![\s\S]*RETURNING)/;
const FULL_STATEMENT = /^\s*INSERT INTO assistant_messages[\s\S]*RETURNING/;

/** A store over `db` that counts its leaf and full statements, and the leaf ones that failed. */
function counted(db: SqliteHandle): SqlProvider & {
  leaf: number;
  refused: number;
  full: number;
} {
  const store = {
    leaf: 0,
    refused: 0,
    full: 0,
    sql<Row>(strings: TemplateStringsArray, ...values: unknown[]): Row[] {
      const text = strings.join("?");
      const leaf = LEAF_STATEMENT.test(text);
      if (leaf) store.leaf++;
      if (FULL_STATEMENT.test(text)) store.full++;
      try {
        return db.sql<Row>(strings, ...values);
      } catch (error) {
        if (leaf) store.refused++;
        throw error;
      }
    },
    transaction: <T>(work: () => T): T => db.transaction(work),
  };
  return store;
}

function parentsOf(db: SqliteHandle, session: string): Record<string, unknown> {
  const rows = db.sql<{ id: string; parent_id: string | null }>`
    SELECT id, parent_id FROM assistant_messages WHERE session_id = ${session} ORDER BY seq`;
  return Object.fromEntries(rows.map((row) => [row.id, row.parent_id]));
}

function changeRows(db: SqliteHandle): number {
  return db.sql<{ n: number }>`SELECT COUNT(*) AS n FROM arbor_changes`[0]!.n;
}

describe("appending on the cached latest leaf (SQLite)", () => {
  let db: SqliteHandle;
  beforeEach(() => {
    db = openSqlite(":memory:");
  });
  afterEach(() => db.database.close());

  it("writes each append after the first with the leaf statement, under the message before it", () => {
    const store = counted(db);
    const provider = new AgentSessionProvider(store, "s");
    for (let index = 0; index < 10; index++)
      expect(
        provider.writeMessages([{ message: message(`m${index}`) }]),
      ).toEqual({
        inserted: [true],
        firstParentId: index === 0 ? null : `m${index - 1}`,
      });
    // The first append has no cached leaf: the full statement. Every later one: the leaf statement.
    expect(store).toMatchObject({ full: 1, leaf: 9, refused: 0 });
    expect(parentsOf(db, "s")).toEqual({
      m0: null,
      ...Object.fromEntries(
        Array.from({ length: 9 }, (_, i) => [`m${i + 1}`, `m${i}`]),
      ),
    });
    expect(provider.getLatestLeafId()).toBe("m9");
    expect(provider.getHistory().map((m) => m.id)).toEqual(
      Array.from({ length: 10 }, (_, i) => `m${i}`),
    );
    expect(changeRows(db)).toBe(10);
  });

  it("refuses when another writer moved the leaf, writes nothing, and the full statement chains onto the new leaf", () => {
    const first = counted(db);
    const second = counted(db);
    const a = new AgentSessionProvider(first, "s");
    const b = new AgentSessionProvider(second, "s");
    a.appendMessage(message("a1"));
    a.appendMessage(message("a2"));
    b.appendMessage(message("b1"));
    // `a` still holds a2 as the leaf; b1 is the session's newest row now.
    expect(a.writeMessages([{ message: message("a3") }])).toEqual({
      inserted: [true],
      firstParentId: "b1",
    });
    expect(first).toMatchObject({ leaf: 2, refused: 1 });
    expect(parentsOf(db, "s")).toEqual({
      a1: null,
      a2: "a1",
      b1: "a2",
      a3: "b1",
    });
    // The refused statement's change notice went with it: one per message.
    expect(changeRows(db)).toBe(4);
    // A child of the cached leaf written elsewhere also moves the leaf.
    b.appendMessage(message("fork"), "a3");
    a.appendMessage(message("a4"), "a1");
    expect(a.writeMessages([{ message: message("a5") }]).firstParentId).toBe(
      "a4",
    );
    expect(a.getHistory().map((m) => m.id)).toEqual(["a1", "a4", "a5"]);
  });

  it("refuses a taken id and reports it as not inserted, leaving the stored message as it was", async () => {
    const store = counted(db);
    const session = Session.create(store).forSession("s");
    await session.appendMessage(message("m1"));
    await session.appendMessage(message("m2"));
    const again = await session.appendMessageWithResult({
      ...message("m2"),
      parts: [{ type: "text", text: "a different text" }],
    });
    expect(again).toMatchObject({ inserted: false, matchesStored: false });
    expect(again.message.parts).toEqual(message("m2").parts);
    expect(store.refused).toBe(1);
    expect(parentsOf(db, "s")).toEqual({ m1: null, m2: "m1" });
    expect(changeRows(db)).toBe(2);
    // The leaf is still m2: the next append goes under it with the leaf statement.
    await session.appendMessage(message("m3"));
    expect(parentsOf(db, "s")).toMatchObject({ m3: "m2" });
  });

  it("stops trying the leaf statement after repeated refusals, and keeps chaining", () => {
    const first = counted(db);
    const a = new AgentSessionProvider(first, "s");
    const b = new AgentSessionProvider(db, "s");
    // Two writers taking turns: every append of `a` finds the leaf moved.
    for (let index = 0; index < 20; index++) {
      a.appendMessage(message(`a${index}`));
      b.appendMessage(message(`b${index}`));
    }
    expect(first.refused).toBe(first.leaf);
    expect(first.refused).toBeGreaterThan(0);
    expect(first.refused).toBeLessThanOrEqual(8);
    const leafBefore = first.leaf;
    a.appendMessage(message("late"));
    expect(first.leaf).toBe(leafBefore);
    // One chain, in the order written.
    const ids = [
      ...Array.from({ length: 20 }, (_, i) => [`a${i}`, `b${i}`]).flat(),
      "late",
    ];
    expect(a.getHistory().map((m) => m.id)).toEqual(ids);
  });

  it("inside a transaction (a kept path), a refusal leaves the transaction writing the message once", () => {
    const store = counted(db);
    const a = new AgentSessionProvider(store, "s");
    const b = new AgentSessionProvider(db, "s");
    a.appendMessage(message("m1"));
    a.appendMessage(message("m2"));
    // A kept path makes the append a transaction with the path's change token around it.
    expect(a.getHistory().map((m) => m.id)).toEqual(["m1", "m2"]);
    b.appendMessage(message("other"));
    a.appendMessage(message("m3"));
    expect(store.refused).toBe(1);
    expect(a.getHistory().map((m) => m.id)).toEqual([
      "m1",
      "m2",
      "other",
      "m3",
    ]);
    expect(changeRows(db)).toBe(4);
  });
});
