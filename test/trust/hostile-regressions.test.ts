// Bugs the hostile-input tests found, each pinned: values a database cannot keep exactly (a NUL,
// a lone surrogate) and values that are not strings are refused before any write, with a typed
// error and nothing half-written. PostgreSQL threw driver errors for them; SQLite stored ids it
// read back differently, and a non-string name reached the driver's binding.
import { describe, expect, it } from "vitest";
import { SessionManager } from "../../src/session/index.js";
import { openSqlite } from "../../src/sqlite/index.js";

const text = (id: string) => ({
  id,
  role: "user" as const,
  parts: [{ type: "text" as const, text: `message ${id}` }],
});

describe("values a database cannot keep exactly are refused before any write", () => {
  it("message ids with a lone surrogate or a NUL throw INVALID_MESSAGE and write nothing", async () => {
    const db = openSqlite(":memory:");
    const manager = SessionManager.create(db);
    const session = manager.getSession((await manager.create("ids")).id);
    for (const id of ["\ud800", "\udbff", "a\udc00", "nul\u0000"])
      await expect(session.appendMessage(text(id))).rejects.toMatchObject({
        code: "INVALID_MESSAGE",
      });
    expect(db.sql`SELECT id FROM assistant_messages`).toEqual([]);
    // A well-formed pair is fine.
    await session.appendMessage(text("pair \ud83d\ude00"));
    expect((await session.getMessage("pair \ud83d\ude00"))?.id).toBe(
      "pair \ud83d\ude00",
    );
    db.close();
  });

  it("a parts array with holes ([, ,]) throws INVALID_MESSAGE and writes nothing", async () => {
    // every() skips the holes of a sparse array, so the check once let them through and the
    // writer failed on an undefined part with a bare TypeError (found by the PostgreSQL fuzz run).
    const db = openSqlite(":memory:");
    const manager = SessionManager.create(db);
    const session = manager.getSession((await manager.create("holes")).id);
    for (const parts of [
      [, ,],
      [{ type: "text", text: "a" }, ,],
    ])
      await expect(
        session.appendMessage({ id: "m1", role: "assistant", parts } as never),
      ).rejects.toMatchObject({ code: "INVALID_MESSAGE" });
    expect(db.sql`SELECT id FROM assistant_messages`).toEqual([]);
    db.close();
  });

  it("create() with a name, owner or metadata that is not a plain string throws INVALID_ARGUMENT and writes no row", async () => {
    const db = openSqlite(":memory:");
    const manager = SessionManager.create(db);
    const bad: Array<[unknown, unknown]> = [
      [5, {}],
      [["a"], ["a"]],
      ["x", null],
      ["x", { ownerId: 7 }],
      ["x", { ownerId: "\ud800" }],
      ["x", { metadata: { key: { deep: true } } }],
      ["x", { metadata: "text" }],
      ["nul\u0000", {}],
    ];
    for (const [name, options] of bad)
      await expect(
        manager.create(name as string, options as never),
      ).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    expect(await manager.list()).toEqual([]);
    const { id } = await manager.create("fine");
    await expect(manager.rename(id, 5 as never)).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
    });
    await expect(
      manager.setMetadata(id, "k", { v: 1 } as never),
    ).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(manager.setOwner(id, "\udfff")).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
    });
    expect(() => manager.getSession("a\u0000b")).toThrow(
      expect.objectContaining({ code: "INVALID_ARGUMENT" }),
    );
    db.close();
  });
});
