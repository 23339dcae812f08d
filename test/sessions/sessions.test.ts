// `arbor-memory/sessions` in memory and on SQLite (`openSqlite(":memory:")`), plus what does not
// depend on a backend: the store check and the re-exports.
import { describe, expect, it } from "vitest";
import {
  InMemorySessionProvider,
  type SessionMessage,
} from "../../src/session/index.js";
import {
  COMPACTION_PREFIX,
  isCompactionMessage,
  Sessions,
  type SessionsStore,
} from "../../src/sessions/index.js";
import { openSqlite, type SqliteHandle } from "../../src/sqlite/index.js";
import { runSessionsSpec } from "./sessions-spec.js";

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
