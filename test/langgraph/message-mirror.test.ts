// How ArborCheckpointSaver mirrors the root graph's `messages` channel (docs/langgraph.md, "What
// maps to what"), through put() as LangGraph calls it: tool calls and results as tool parts, a
// message removed by a fork making the rest a new branch, subgraphs and unchanged channels not
// mirrored, and a restart (a new saver) writing nothing twice.
import {
  AIMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from "@langchain/core/messages";
import { emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { ArborCheckpointSaver } from "../../src/langgraph/index.js";
import { memoryBackend } from "../../src/session/index.js";

const metadata = { source: "loop" as const, step: 0, parents: {} };

describe("ArborCheckpointSaver's message mirror", () => {
  it("stores tool calls and results as tool parts, and follows a fork that removes a message as a new branch", async () => {
    const backend = memoryBackend();
    const saver = new ArborCheckpointSaver(backend);
    const messages = [
      new SystemMessage({ id: "s", content: "You plan trips." }),
      new HumanMessage({ id: "h1", content: "Weather in Lisbon?" }),
      new AIMessage({
        id: "a1",
        content: "",
        tool_calls: [
          { id: "call-1", name: "weather", args: { city: "Lisbon" } },
        ],
      }),
      new ToolMessage({
        id: "t1",
        content: "22°C, sunny",
        tool_call_id: "call-1",
        name: "weather",
      }),
      new AIMessage({ id: "a2", content: "It is 22°C and sunny." }),
    ];
    const first = await put(saver, "trip", messages);
    const history = await saver.manager.getHistory("trip");
    expect(history.map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
      "assistant",
      "assistant",
    ]);
    expect(history[2]!.parts).toEqual([
      {
        type: "dynamic-tool",
        toolName: "weather",
        toolCallId: "call-1",
        state: "input-available",
        input: { city: "Lisbon" },
      },
    ]);
    expect(history[3]!.parts).toEqual([
      {
        type: "dynamic-tool",
        toolName: "weather",
        toolCallId: "call-1",
        state: "output-available",
        output: "22°C, sunny",
      },
    ]);

    // A fork from the first checkpoint without the system message: same LangGraph ids, a new root.
    await put(saver, "trip", messages.slice(1), first);
    const forked = await saver.manager.getHistory("trip");
    expect(forked.map((message) => message.metadata)).toEqual(
      history.slice(1).map((message) => message.metadata),
    );
    expect(forked[0]!.id).not.toBe(history[1]!.id);
    expect(await saver.manager.getMessageCount("trip")).toBe(4);
    // The first branch is whole.
    expect(
      (await saver.manager.getHistory("trip", history[4]!.id)).length,
    ).toBe(5);

    // A restart: a new saver over the same store mirrors the same checkpoint again, writing nothing.
    const restarted = new ArborCheckpointSaver(backend);
    await put(restarted, "trip", messages.slice(1));
    expect(await saver.manager.getSession("trip").countMessages()).toBe(9);
  });

  it("mirrors neither a subgraph's messages nor a checkpoint that did not change the channel", async () => {
    const saver = new ArborCheckpointSaver(memoryBackend());
    await put(
      saver,
      "t",
      [new HumanMessage({ id: "h", content: "Hi" })],
      undefined,
      "child:1",
    );
    expect(await saver.manager.getHistory("t")).toEqual([]);
    const checkpoint = {
      ...emptyCheckpoint(),
      id: uuid6(0),
      channel_values: {
        messages: [new HumanMessage({ id: "h", content: "Hi" })],
      },
      channel_versions: { messages: 1 },
    };
    await saver.put(
      { configurable: { thread_id: "t" } },
      checkpoint,
      metadata,
      {},
    );
    expect(await saver.manager.getHistory("t")).toEqual([]);
  });
});

// --- Internal helpers ---

/** A checkpoint whose `messages` channel changed, under `parent`; returns its id. */
async function put(
  saver: ArborCheckpointSaver,
  threadId: string,
  messages: unknown[],
  parent?: string,
  namespace = "",
): Promise<string> {
  const checkpoint = {
    ...emptyCheckpoint(),
    id: uuid6(0),
    channel_values: { messages },
    channel_versions: { messages: 1 },
  };
  const config = await saver.put(
    {
      configurable: {
        thread_id: threadId,
        checkpoint_ns: namespace,
        ...(parent ? { checkpoint_id: parent } : {}),
      },
    },
    checkpoint,
    metadata,
    { messages: 1 },
  );
  return String(config.configurable?.checkpoint_id);
}
