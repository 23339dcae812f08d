// The route helper's cases on ai 5: every import of `ai`, the helper's own included, resolves to
// ai 5 (the `ai5` dev dependency), with the scripted `MockLanguageModelV2` from ai 5's `ai/test`.
import { expect, it, vi } from "vitest";
import { SessionManager } from "../../src/session/index.js";
import { openSqlite } from "../../src/sqlite/index.js";
import { runChatHandlerCases } from "./chat-handler.cases.js";

vi.mock("ai", async () => await import("ai5"));

runChatHandlerCases({
  name: "SQLite with ai 5",
  spec: "v2",
  async create() {
    const handle = openSqlite(":memory:");
    return {
      manager: () => SessionManager.create(handle),
      close: async () => handle.close(),
    };
  },
});

it("the cases above ran on ai 5 (the helper loads the mocked module too)", async () => {
  const ai = await import("ai");
  expect("ToolLoopAgent" in ai).toBe(false);
  expect(typeof ai.validateUIMessages).toBe("function");
});
