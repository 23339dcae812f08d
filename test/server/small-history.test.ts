// A history of one window is answered whole, in the request's own turn, on SQLite as on
// PostgreSQL (`getHistoryAndLeafWithin`): the server streams only longer ones, whose windows wait
// for turns behind the readers of other large answers. Real SQLite; the answer must be the
// history `getHistory()` reads, overlays applied, and `null` (nothing read) beyond the bounds.
import { afterEach, describe, expect, it } from "vitest";
import { sessionSeam, type Session } from "../../src/session/facade/session.js";
import { SessionManager } from "../../src/session/index.js";
import { openSqlite, type SqliteHandle } from "../../src/sqlite/index.js";

const activeHistoryWithin = (
  session: Session,
  within: { messages: number; bytes: number },
) => sessionSeam(session).activeHistoryWithin(within);
const WINDOW = { messages: 50, bytes: 64 * 1024 };
const handles: SqliteHandle[] = [];

afterEach(() => {
  for (const handle of handles.splice(0)) handle.close();
});

async function sessionWith(count: number, textBytes = 100): Promise<Session> {
  const db = openSqlite(":memory:");
  handles.push(db);
  const manager = SessionManager.create(db);
  const session = manager.getSession((await manager.create("S")).id);
  for (let index = 0; index < count; index++)
    await session.appendMessage({
      id: `m${index}`,
      role: index % 2 ? "assistant" : "user",
      parts: [{ type: "text", text: `${index} `.padEnd(textBytes, "x") }],
    });
  return session;
}

describe("a small history on SQLite", () => {
  it("is read whole with its leaf when it fits one window", async () => {
    const session = await sessionWith(5);
    const read = await activeHistoryWithin(session, WINDOW);
    expect(read).not.toBeNull();
    expect(read!.leafId).toBe("m4");
    expect(read!.messages).toEqual(await session.getHistory());
  });

  it("applies compaction overlays as getHistory() does", async () => {
    const session = await sessionWith(6);
    await session.addCompaction("Talked about a trip", "m0", "m3");
    const read = await activeHistoryWithin(session, WINDOW);
    const history = await session.getHistory();
    expect(JSON.stringify(history)).toContain("Talked about a trip");
    if (read !== null) expect(read.messages).toEqual(history);
  });

  it("is null past the window, by messages or by bytes, and for an empty session an empty path", async () => {
    expect(await activeHistoryWithin(await sessionWith(51), WINDOW)).toBeNull();
    expect(
      await activeHistoryWithin(await sessionWith(8, 10_000), WINDOW),
    ).toBeNull();
    expect(await activeHistoryWithin(await sessionWith(0), WINDOW)).toEqual({
      messages: [],
      leafId: null,
    });
  });
});
