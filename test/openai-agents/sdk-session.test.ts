// The Agents SDK's own Session tests, ported to ArborSession on the in-memory and SQLite backends:
// the cases of MemorySession's test that any Session must pass ("stores and retrieves items",
// "returns clones so external mutations do not persist"). MemorySession's logging, history
// mutation and history transaction cases test optional capabilities that ArborSession does not
// declare, and are left out.
//
// Ported from openai/openai-agents-js, packages/agents-core/test/memorySession.test.ts.
// MIT License, Copyright (c) 2025 OpenAI. Permission is hereby granted, free of charge, to any
// person obtaining a copy of this software and associated documentation files (the "Software"),
// to deal in the Software without restriction, including without limitation the rights to use,
// copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the Software, and to
// permit persons to whom the Software is furnished to do so, subject to the following conditions:
// The above copyright notice and this permission notice shall be included in all copies or
// substantial portions of the Software. THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY
// KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS
// FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS
// BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR
// OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS
// IN THE SOFTWARE.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentInputItem } from "@openai/agents-core";
import { afterAll, describe, expect, test } from "vitest";
import { ArborSession } from "../../src/openai-agents/index.js";
import { memoryBackend, SessionManager } from "../../src/session/index.js";
import { sqliteBackend } from "../../src/sqlite/index.js";

const folder = mkdtempSync(join(tmpdir(), "arbor-openai-agents-sdk-"));
const sqlite = sqliteBackend(join(folder, "agent.db"));
afterAll(() => {
  sqlite.sqlite.close();
  rmSync(folder, { recursive: true, force: true });
});

const createUserMessage = (text: string): AgentInputItem => ({
  role: "user",
  content: [
    {
      type: "input_text",
      text,
    },
  ],
});

/** MemorySession's `initialItems`, as ArborSession takes them: added first. */
async function sessionWith(
  manager: SessionManager,
  sessionId: string,
  initialItems: AgentInputItem[],
): Promise<ArborSession> {
  const session = new ArborSession({ manager, sessionId });
  await session.addItems(initialItems);
  return session;
}

describe.each([
  ["the in-memory backend", () => SessionManager.create(memoryBackend())],
  ["SQLite", () => SessionManager.create(sqlite)],
])("the SDK's Session tests on ArborSession over %s", (_name, manager) => {
  test("stores and retrieves items", async () => {
    const initialItems = [createUserMessage("hello")];
    const session = await sessionWith(manager(), "session-1", initialItems);

    expect(await session.getSessionId()).toBe("session-1");
    expect(await session.getItems()).toEqual(initialItems);

    const newItems = [createUserMessage("one"), createUserMessage("two")];
    await session.addItems(newItems);
    expect(await session.getItems()).toEqual([...initialItems, ...newItems]);

    expect(await session.getItems(2)).toEqual(newItems);

    expect(await session.popItem()).toEqual(newItems[1]);
    expect(await session.getItems()).toEqual([...initialItems, newItems[0]]);

    await session.clearSession();
    expect(await session.getItems()).toEqual([]);
    expect(await session.getItems(3)).toEqual([]);
    expect(await session.popItem()).toBeUndefined();
  });

  test("returns clones so external mutations do not persist", async () => {
    const initial = createUserMessage("start");
    const session = await sessionWith(manager(), "session-2", [initial]);

    const items = await session.getItems();
    expect(items[0]).not.toBe(initial);
    (items[0] as { content: unknown }).content = "mutated";
    expect(await session.getItems()).toEqual([createUserMessage("start")]);

    const next = createUserMessage("next");
    await session.addItems([next]);
    (next as { content: unknown }).content = "mutated";
    expect(await session.getItems()).toEqual([
      createUserMessage("start"),
      createUserMessage("next"),
    ]);

    const popped = await session.popItem();
    expect(popped).toEqual(createUserMessage("next"));
    if (popped) {
      (popped as { content: unknown }).content = "mutated";
    }
    expect(await session.getItems()).toEqual([createUserMessage("start")]);
  });
});
