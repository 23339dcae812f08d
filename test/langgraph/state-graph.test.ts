// A real LangGraph StateGraph over ArborCheckpointSaver on a SQLite file, its model a scripted fake
// (FakeListChatModel of @langchain/core): the first turn runs in a child process against the built
// package (support/fake-first-turn.mjs; `npm run build` first) that exits, the test resumes the
// thread from the file (a restart), its conversation visible as the Arbor session's messages and
// found by search, and a time-travel fork that edits a message (same LangGraph id) stored as a
// sibling branch.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { HumanMessage } from "@langchain/core/messages";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import {
  END,
  MessagesAnnotation,
  START,
  StateGraph,
} from "@langchain/langgraph";
import { afterEach, describe, expect, it } from "vitest";
import { ArborCheckpointSaver } from "../../src/langgraph/index.js";
import type { SessionMessage } from "../../src/session/index.js";
import { sqliteBackend } from "../../src/sqlite/index.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const FIRST_TURN = join(ROOT, "test/langgraph/support/fake-first-turn.mjs");
const run = promisify(execFile);

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0))
    rmSync(folder, { recursive: true, force: true });
});

describe("a StateGraph on ArborCheckpointSaver (fake scripted chat model)", () => {
  it("resumes a thread after a process restart, mirrors it as Arbor messages, and stores a time-travel edit as a sibling branch", async () => {
    const file = join(tempFolder(), "agent.db");
    const thread = { configurable: { thread_id: "trip" } };

    // First process: one turn, then the process exits.
    const { stdout } = await run(process.execPath, [
      FIRST_TURN,
      file,
      "trip",
      "I plan a trip to Lisbon",
      "Lisbon in May is mild and sunny.",
    ]);
    expect(JSON.parse(stdout)).toEqual([
      "I plan a trip to Lisbon",
      "Lisbon in May is mild and sunny.",
    ]);

    // Second process (this one): a new saver over the same file continues the same thread.
    const second = open(file, [
      "Plan about 80 euros a day.",
      "The Gulbenkian museum is a must.",
    ]);
    const resumed = await second.graph.invoke(
      { messages: [new HumanMessage("What about the budget?")] },
      thread,
    );
    expect(resumed.messages.map((message) => message.text)).toEqual([
      "I plan a trip to Lisbon",
      "Lisbon in May is mild and sunny.",
      "What about the budget?",
      "Plan about 80 euros a day.",
    ]);

    const manager = second.saver.manager;
    const mirrored = await manager.getHistory("trip");
    expect(mirrored.map(roleAndText)).toEqual([
      ["user", "I plan a trip to Lisbon"],
      ["assistant", "Lisbon in May is mild and sunny."],
      ["user", "What about the budget?"],
      ["assistant", "Plan about 80 euros a day."],
    ]);
    const hits = await manager.search("budget", { sessionIds: ["trip"] });
    expect(hits.map((hit) => hit.content)).toContain("What about the budget?");

    // Time travel: back to the checkpoint before the second answer, the question edited in
    // place (add_messages replaces by id), then the graph runs on from there.
    let beforeSecondAnswer: Awaited<
      ReturnType<typeof second.graph.getState>
    > | null = null;
    for await (const snapshot of second.graph.getStateHistory(thread)) {
      const messages = snapshot.values.messages ?? [];
      if (messages.length === 3 && snapshot.next.includes("model"))
        beforeSecondAnswer = snapshot;
    }
    expect(beforeSecondAnswer).not.toBeNull();
    const question = beforeSecondAnswer!.values.messages[2]!;
    const forked = await second.graph.updateState(beforeSecondAnswer!.config, {
      messages: [
        new HumanMessage({ id: question.id!, content: "What about museums?" }),
      ],
    });
    const answered = await second.graph.invoke(null, forked);
    expect(answered.messages.map((message) => message.text)).toEqual([
      "I plan a trip to Lisbon",
      "Lisbon in May is mild and sunny.",
      "What about museums?",
      "The Gulbenkian museum is a must.",
    ]);

    // The Arbor tree: both questions are children of the first answer, and the active branch is
    // the fork's.
    const children = await manager.getBranches("trip", mirrored[1]!.id);
    expect(children.map(roleAndText)).toEqual([
      ["user", "What about the budget?"],
      ["user", "What about museums?"],
    ]);
    expect((await manager.getHistory("trip")).map(roleAndText)).toEqual([
      ["user", "I plan a trip to Lisbon"],
      ["assistant", "Lisbon in May is mild and sunny."],
      ["user", "What about museums?"],
      ["assistant", "The Gulbenkian museum is a must."],
    ]);
    // The original branch is kept whole.
    expect(
      (await manager.getHistory("trip", mirrored[3]!.id)).map(roleAndText),
    ).toEqual(mirrored.map(roleAndText));
    second.close();
  });
});

// --- Internal helpers ---

function open(file: string, answers: string[]) {
  const backend = sqliteBackend(file);
  const saver = new ArborCheckpointSaver(backend);
  const model = new FakeListChatModel({ responses: answers });
  const graph = new StateGraph(MessagesAnnotation)
    .addNode("model", async (state) => ({
      messages: [await model.invoke(state.messages)],
    }))
    .addEdge(START, "model")
    .addEdge("model", END)
    .compile({ checkpointer: saver });
  return { saver, graph, close: () => backend.sqlite.close() };
}

function roleAndText(message: SessionMessage): [string, string] {
  return [message.role, message.parts.map((part) => part.text ?? "").join("")];
}

function tempFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), "arbor-langgraph-"));
  folders.push(folder);
  return folder;
}
