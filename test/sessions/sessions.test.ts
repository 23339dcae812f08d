// `arbor-memory/sessions` in memory and on SQLite (`openSqlite(":memory:")`), plus what does not
// depend on a backend: the store check and the re-exports.
import { describe, expect, it, vi } from "vitest";
import {
  InMemorySessionProvider,
  Session,
  type SessionMessage,
} from "../../src/session/index.js";
import {
  COMPACTION_PREFIX,
  isCompactionMessage,
  Sessions,
  type SessionsStore,
} from "../../src/sessions/index.js";
import { openSqlite, type SqliteHandle } from "../../src/sqlite/index.js";
import { largeBody, runSessionsSpec, text } from "./sessions-spec.js";

runSessionsSpec({
  name: "memory",
  create: () => new InMemorySessionProvider(),
});

runSessionsSpec({
  name: "SQLite",
  create: () => openSqlite(":memory:"),
  dispose: (store: SessionsStore) => (store as SqliteHandle).close(),
});

describe("arbor-memory/sessions without a backend", () => {
  it("new Sessions() rejects what is not a store with INVALID_TARGET", () => {
    for (const store of [undefined, null, 42, {}]) {
      expect(() => new Sessions(store as never)).toThrow(
        expect.objectContaining({ code: "INVALID_TARGET" }),
      );
    }
  });

  it("subscribe() needs a function", () => {
    const sessions = new Sessions(new InMemorySessionProvider());
    expect(() => sessions.subscribe("nope" as never)).toThrow(
      expect.objectContaining({ code: "INVALID_ARGUMENT" }),
    );
  });

  it("Sessions stores a large message whole while the Session API keeps its row-size cut by default", async () => {
    const provider = new InMemorySessionProvider();
    const body = largeBody(2 * 1024 * 1024);
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const seed = Session.create(provider).forSession("seed");
      await seed.appendMessage(text("cut", body));
      const cut = await seed.getMessage("cut");
      expect(String(cut?.parts[0]?.text).length).toBeLessThan(body.length);
      const sessions = new Sessions(provider);
      await sessions.session("whole").appendMessage(text("whole", body));
      const whole = await sessions.session("whole").getMessage("whole");
      expect(String(whole?.parts[0]?.text) === body).toBe(true);
    } finally {
      warn.mockRestore();
    }
  });

  it("reads a path longer than 10,000 rows whole: no cap, and truncated only by the byte budget", async () => {
    const provider = new InMemorySessionProvider();
    const count = 10_005;
    await Session.create(provider).appendAll(
      Array.from({ length: count }, (_, index) => text(`m${index}`)),
    );
    const session = new Sessions(provider).session();
    expect(await session.getHistory()).toHaveLength(count);
    expect(await session.getHistoryRowStats()).toHaveLength(count);
    const streamed: string[] = [];
    for await (const message of session.history({ newestFirst: true }))
      streamed.push(message.id);
    expect(streamed).toHaveLength(count);
    expect(streamed[0]).toBe(`m${count - 1}`);
    const recent = await session.getRecentHistory(64 * 1024 * 1024);
    expect(recent.messages).toHaveLength(count);
    expect(recent.truncated).toBe(false);
  });

  it('isCompactionMessage tells overlay messages by the "compaction_" prefix', () => {
    const overlay: SessionMessage = {
      id: "compaction_1",
      role: "assistant",
      parts: [],
    };
    const message: SessionMessage = { id: "u1", role: "user", parts: [] };
    expect(COMPACTION_PREFIX).toBe("compaction_");
    expect(isCompactionMessage(overlay)).toBe(true);
    expect(isCompactionMessage(message)).toBe(false);
  });
});
