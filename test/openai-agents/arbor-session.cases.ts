// The cases every backend runs for arbor-memory/openai-agents: the Agents SDK's Session contract
// (items back exactly as added, the last `limit` in order, popItem, clearSession), what Arbor keeps
// beside it (a popped item stays as a branch, readable messages for the studio, the CLI and
// search), turns, branching from a turn and usage per turn.
import type { AgentInputItem } from "@openai/agents-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ArborSession } from "../../src/openai-agents/index.js";
import type { SessionManager } from "../../src/session/index.js";

export interface ArborSessionBackend {
  name: string;
  /** A fresh store; `manager()` may be called again for a second manager (a second process) over it. */
  create(): Promise<{ manager: () => SessionManager; close(): Promise<void> }>;
}

export const user = (text: string): AgentInputItem => ({
  role: "user",
  content: text,
});
export const assistant = (text: string): AgentInputItem => ({
  type: "message",
  role: "assistant",
  status: "completed",
  content: [{ type: "output_text", text }],
});
const call: AgentInputItem = {
  type: "function_call",
  callId: "call-1",
  name: "get_weather",
  status: "completed",
  arguments: '{"city":"Kyoto"}',
  providerData: { nested: { kept: [1, 2, { three: null }] } },
};
const result: AgentInputItem = {
  type: "function_call_result",
  callId: "call-1",
  name: "get_weather",
  status: "completed",
  output: { type: "text", text: "Sunny, 21°C" },
};
const reasoning: AgentInputItem = {
  type: "reasoning",
  id: "rs_1",
  content: [{ type: "input_text", text: "The user wants the weather." }],
  providerData: { encryptedContent: "gAAAA…" },
};

export function runArborSessionCases(backend: ArborSessionBackend): void {
  describe(`ArborSession on ${backend.name}`, () => {
    let store: Awaited<ReturnType<ArborSessionBackend["create"]>>;
    beforeEach(async () => {
      store = await backend.create();
    });
    afterEach(() => store.close());

    it("returns every item exactly as added, in order, and the last `limit` of them", async () => {
      const session = new ArborSession({ manager: store.manager() });
      const items = [
        user("Weather in Kyoto?"),
        reasoning,
        call,
        result,
        assistant("Sunny."),
      ];
      await session.addItems(items.slice(0, 2));
      await session.addItems(items.slice(2));
      expect(await session.getItems()).toEqual(items);
      expect(await session.getItems(2)).toEqual(items.slice(3));
      expect(await session.getItems(50)).toEqual(items);
      expect(await session.getItems(0)).toEqual([]);
    });

    it("registers the session under its id and continues it from another manager over the store", async () => {
      const first = new ArborSession({
        manager: store.manager(),
        sessionId: "chat-1",
        name: "Kyoto",
      });
      expect(await first.getSessionId()).toBe("chat-1");
      await first.addItems([user("Hi"), assistant("Hello!")]);
      const again = new ArborSession({
        manager: store.manager(),
        sessionId: "chat-1",
      });
      expect(await again.getItems()).toEqual([user("Hi"), assistant("Hello!")]);
      expect((await store.manager().get("chat-1"))?.name).toBe("Kyoto");
      const generated = new ArborSession({ manager: store.manager() });
      expect(await generated.getSessionId()).not.toBe("chat-1");
    });

    it("mirrors items as readable Arbor messages: text, tool call and result", async () => {
      const manager = store.manager();
      const session = new ArborSession({ manager, sessionId: "mirror" });
      await session.addItems([
        user("Weather in Kyoto?"),
        call,
        result,
        assistant("Sunny in Kyoto."),
      ]);
      const history = await manager.getHistory("mirror");
      expect(history.map(({ role, parts }) => ({ role, parts }))).toEqual([
        { role: "user", parts: [{ type: "text", text: "Weather in Kyoto?" }] },
        {
          role: "assistant",
          parts: [
            {
              type: "dynamic-tool",
              toolName: "get_weather",
              toolCallId: "call-1",
              state: "input-available",
              input: { city: "Kyoto" },
            },
          ],
        },
        {
          role: "assistant",
          parts: [
            {
              type: "dynamic-tool",
              toolName: "get_weather",
              toolCallId: "call-1",
              state: "output-available",
              output: { type: "text", text: "Sunny, 21°C" },
            },
          ],
        },
        {
          role: "assistant",
          parts: [{ type: "text", text: "Sunny in Kyoto." }],
        },
      ]);
      const hits = await manager.search("Kyoto sunny");
      expect(hits.some((hit) => hit.sessionId === "mirror")).toBe(true);
    });

    it("popItem returns the newest item and keeps it in the tree as a branch", async () => {
      const manager = store.manager();
      const session = new ArborSession({ manager, sessionId: "pop" });
      await session.addItems([user("one"), assistant("two"), user("three")]);
      expect(await session.popItem()).toEqual(user("three"));
      expect(await session.getItems()).toEqual([user("one"), assistant("two")]);
      await session.addItems([user("three, again")]);
      expect(await session.getItems()).toEqual([
        user("one"),
        assistant("two"),
        user("three, again"),
      ]);
      // Both versions of the third item are children of the second: nothing was deleted.
      const arbor = await session.arborSession();
      const second = (await arbor.getHistory())[1]!;
      const siblings = await arbor.getBranches(second.id);
      expect(siblings.map((message) => message.parts[0]?.text)).toEqual([
        "three",
        "three, again",
      ]);
      expect(await arbor.countMessages()).toBe(4);
    });

    it("popItem down to nothing, then a new first item starts a new root; an empty session pops undefined", async () => {
      const session = new ArborSession({
        manager: store.manager(),
        sessionId: "empty",
      });
      expect(await session.popItem()).toBeUndefined();
      await session.addItems([user("first")]);
      expect(await session.popItem()).toEqual(user("first"));
      expect(await session.getItems()).toEqual([]);
      expect(await session.popItem()).toBeUndefined();
      // The emptied history holds in another process too.
      const other = new ArborSession({
        manager: store.manager(),
        sessionId: "empty",
      });
      expect(await other.getItems()).toEqual([]);
      await other.addItems([user("second")]);
      expect(await session.getItems()).toEqual([user("second")]);
      expect(await (await other.arborSession()).countMessages()).toBe(2);
    });

    it("clearSession erases every branch; the session can be used again", async () => {
      const manager = store.manager();
      const session = new ArborSession({ manager, sessionId: "clear" });
      await session.addItems([user("a"), assistant("b")]);
      await session.popItem();
      await session.addItems([assistant("c")]);
      await session.clearSession();
      expect(await session.getItems()).toEqual([]);
      expect(await (await session.arborSession()).countMessages()).toBe(0);
      await session.addItems([user("after")]);
      expect(await session.getItems()).toEqual([user("after")]);
    });

    it("lists turns, branches from an earlier turn and switches back to the old branch", async () => {
      const session = new ArborSession({
        manager: store.manager(),
        sessionId: "turns",
      });
      await session.addItems([user("Plan Kyoto"), assistant("Day 1: temples")]);
      await session.addItems([
        user("Add food"),
        call,
        result,
        assistant("Nishiki market"),
      ]);
      const turns = await session.listTurns();
      expect(turns.map(({ turn, text }) => ({ turn, text }))).toEqual([
        { turn: 1, text: "Plan Kyoto" },
        { turn: 2, text: "Add food" },
      ]);
      await session.branchFrom(2);
      expect(await session.getItems()).toEqual([
        user("Plan Kyoto"),
        assistant("Day 1: temples"),
      ]);
      await session.addItems([
        user("Add museums"),
        assistant("National Museum"),
      ]);
      expect((await session.listTurns()).map((turn) => turn.text)).toEqual([
        "Plan Kyoto",
        "Add museums",
      ]);
      await session.switchBranch(turns[1]!.messageId);
      expect(await session.getItems()).toEqual([
        user("Plan Kyoto"),
        assistant("Day 1: temples"),
        user("Add food"),
        call,
        result,
        assistant("Nishiki market"),
      ]);
      await session.branchFrom(1);
      expect(await session.getItems()).toEqual([]);
      await session.addItems([user("Plan Osaka")]);
      expect((await session.listTurns()).map((turn) => turn.text)).toEqual([
        "Plan Osaka",
      ]);
      // Back to the branch that was active when turn 1 was branched from: whole again.
      await session.switchBranch(turns[1]!.messageId);
      expect(await session.getItems()).toHaveLength(6);
      await session.popItem();
      await session.popItem();
      await session.popItem();
      await session.popItem();
      await session.branchFrom(1);
      await session.switchBranch(turns[0]!.messageId);
      expect((await session.getItems()).at(-1)).toEqual(
        assistant("National Museum"),
      );
    });

    it("stores usage per turn and adds it to the session's counters", async () => {
      const manager = store.manager();
      const session = new ArborSession({ manager, sessionId: "usage" });
      await session.addItems([user("one"), assistant("1")]);
      const response = (inputTokens: number, outputTokens: number) => ({
        usage: {
          requests: 1,
          inputTokens,
          outputTokens,
          totalTokens: inputTokens + outputTokens,
        },
      });
      await session.storeRunUsage({
        rawResponses: [response(10, 2), response(12, 3)],
      });
      await session.addItems([user("two"), assistant("2")]);
      await session.storeRunUsage({ rawResponses: [response(30, 5)] });
      await session.storeRunUsage({ rawResponses: [response(1, 1)] });
      expect((await session.listTurns()).map((turn) => turn.usage)).toEqual([
        { requests: 2, inputTokens: 22, outputTokens: 5, totalTokens: 27 },
        { requests: 2, inputTokens: 31, outputTokens: 6, totalTokens: 37 },
      ]);
      expect(await session.getSessionUsage()).toEqual({
        inputTokens: 53,
        outputTokens: 11,
        totalTokens: 64,
      });
      // The item of a turn with usage is still the item as added.
      expect(await session.getItems()).toEqual([
        user("one"),
        assistant("1"),
        user("two"),
        assistant("2"),
      ]);
      expect((await manager.get("usage"))?.input_tokens).toBe(53);
    });

    it("rejects bad input with INVALID_ARGUMENT and writes nothing", async () => {
      const manager = store.manager();
      const session = new ArborSession({ manager, sessionId: "bad" });
      await session.addItems([user("kept")]);
      const bad = [user("not written"), 42 as unknown as AgentInputItem];
      await expect(session.addItems(bad)).rejects.toMatchObject({
        code: "INVALID_ARGUMENT",
      });
      await expect(session.getItems(1.5)).rejects.toMatchObject({
        code: "INVALID_ARGUMENT",
      });
      await expect(session.branchFrom(3)).rejects.toMatchObject({
        code: "INVALID_ARGUMENT",
      });
      await expect(session.switchBranch("nope")).rejects.toMatchObject({
        code: "MESSAGE_NOT_FOUND",
      });
      expect(() => new ArborSession({ manager, sessionId: "" })).toThrow(
        expect.objectContaining({ code: "INVALID_ARGUMENT" }),
      );
      expect(await session.getItems()).toEqual([user("kept")]);
      expect(await (await session.arborSession()).countMessages()).toBe(1);
    });

    it("shows a message added by other means (the studio, the CLI) to the agent as an input item", async () => {
      const manager = store.manager();
      const session = new ArborSession({ manager, sessionId: "mixed" });
      await session.addItems([user("from the agent")]);
      await manager.append("mixed", {
        id: "typed",
        role: "assistant",
        parts: [{ type: "text", text: "typed in the studio" }],
      });
      expect(await session.getItems()).toEqual([
        user("from the agent"),
        {
          type: "message",
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: "typed in the studio" }],
        },
      ]);
    });
  });
}
