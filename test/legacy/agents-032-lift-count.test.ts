/**
 * The agents@0.32 lift reads COUNT answers (docs/behavior/storage.md#sqlite-and-durable-objects).
 * A `sql` tag that answers a COUNT with no row is not a working store: opening a session over it
 * fails with a typed `STORAGE_UNAVAILABLE` naming the count, not with
 * `TypeError: Cannot read properties of undefined (reading 'n')`, and the schema step it ran in is
 * rolled back, so an honest tag over the same database still opens and stores.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Session } from "../../src/session/index.js";
import type { SqlProvider } from "../../src/session/contracts/sql-provider.js";
import { openSqlite, type SqliteHandle } from "../../src/sqlite/open-sqlite.js";

const handles: SqliteHandle[] = [];
afterEach(() => {
  for (const handle of handles.splice(0)) handle.close();
});

/** A real SQLite tag, wrapped (a deliberately broken fake) so the lift's table COUNT answers no row. */
function countlessTag(handle: SqliteHandle): SqlProvider {
  return {
    sql<Row>(strings: TemplateStringsArray, ...values: unknown[]): Row[] {
      if (strings.join("?").includes("COUNT(*) AS n FROM sqlite_master"))
        return [];
      return handle.sql<Row>(strings, ...values);
    },
    transaction: (fn) => handle.transaction(fn),
  };
}

const message = {
  id: "u1",
  role: "user",
  parts: [{ type: "text", text: "Hello" }],
};

describe("a sql tag that answers a COUNT with no row (broken fake tag over real SQLite)", () => {
  it("gets a typed STORAGE_UNAVAILABLE, not a TypeError on `n`", async () => {
    const handle = openSqlite(":memory:");
    handles.push(handle);
    const session = Session.create(countlessTag(handle)).forSession("chat-1");
    const failure = await session.appendMessage(message).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(Error);
    expect(failure).not.toBeInstanceOf(TypeError);
    expect(failure).toMatchObject({ code: "STORAGE_UNAVAILABLE" });
    expect((failure as Error).message).toMatch(/no count for table/);

    // Nothing half-done: the same database opens and stores through an honest tag.
    const honest = Session.create(handle).forSession("chat-1");
    await honest.appendMessage(message);
    expect((await honest.getHistory()).map((stored) => stored.id)).toEqual([
      "u1",
    ]);
  });
});
