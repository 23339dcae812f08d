import { describe, expect, it } from "vitest";
import { SessionManager } from "../../src/session/index.js";
import type { SessionMessage } from "../../src/session/contracts/types.js";
import { openSqlite } from "../../src/sqlite/index.js";

const hello: SessionMessage = {
  id: "u1",
  role: "user",
  parts: [{ type: "text", text: "Hello" }],
};

/**
 * Regression: the manager recorded a bad builder argument before checking it, so the call threw
 * (or did not) and every session opened afterwards failed on that argument, for good.
 */
describe("SessionManager builder arguments", () => {
  const badCalls: Array<[string, (manager: SessionManager) => unknown]> = [
    ["compactAfter(NaN)", (manager) => manager.compactAfter(Number.NaN)],
    ["compactAfter(-1)", (manager) => manager.compactAfter(-1)],
    [
      "onCompaction(non-function)",
      (manager) => manager.onCompaction("summarize" as never),
    ],
    ["withAudit({})", (manager) => manager.withAudit({} as never)],
  ];

  for (const [name, call] of badCalls) {
    it(`${name} throws INVALID_ARGUMENT and leaves the manager usable`, async () => {
      const db = openSqlite(":memory:");
      try {
        const manager = SessionManager.create(db);
        const first = await manager.create("First");
        await manager.append(first.id, hello);
        expect(() => call(manager)).toThrow(
          expect.objectContaining({ code: "INVALID_ARGUMENT" }),
        );
        const second = await manager.create("Second");
        await manager.append(second.id, hello);
        expect(await manager.getHistory(second.id)).toEqual([hello]);
      } finally {
        db.close();
      }
    });
  }
});
