// The real `@ai-sdk/openai-compatible` provider code path over HTTP, configured from environment
// variables by `modelFromEnv`, against a fake OpenAI-compatible server on 127.0.0.1 that scripts
// its replies (SSE streaming, a tool call, a plain JSON completion) and records the requests.
import { afterEach, describe, expect, it } from "vitest";
import {
  modelFromEnv,
  SessionAgent,
  summarizeWith,
} from "../../src/agent/index.js";
import { Session } from "../../src/session/index.js";
import { openSqlite } from "../../src/sqlite/index.js";
import { createCompactFunction } from "../../src/utils/index.js";
import {
  startFakeOpenAIServer,
  type FakeOpenAIServer,
} from "./support/fake-openai-server.js";

let server: FakeOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function env(baseURL: string) {
  return {
    ARBOR_BASE_URL: baseURL,
    ARBOR_MODEL: "fake-chat-model",
    ARBOR_API_KEY: "test-key",
    ARBOR_SUMMARY_MODEL: "fake-summary-model",
  };
}

describe("OpenAI-compatible endpoint from the environment (fake server on loopback)", () => {
  it("streams a tool turn over SSE: set_context, then the answer; the requests carry the model, the system prompt and the tools", async () => {
    server = await startFakeOpenAIServer([
      {
        toolCall: {
          id: "call_1",
          name: "set_context",
          arguments: { label: "memory", content: "User likes green tea." },
        },
        usage: { prompt_tokens: 40, completion_tokens: 9 },
      },
      {
        text: "Noted: you like green tea.",
        usage: { prompt_tokens: 60, completion_tokens: 6 },
      },
    ]);
    const models = await modelFromEnv(env(server.baseURL));
    const session = Session.create(openSqlite(":memory:"))
      .forSession("http")
      .withContext("memory", { description: "Facts about the user" });
    const agent = new SessionAgent({ session, model: models!.model });

    const turn = await agent.run("I like green tea.");

    expect(turn.text).toBe("Noted: you like green tea.");
    expect(turn.usage).toMatchObject({ inputTokens: 100, outputTokens: 15 });
    expect((await session.loadContext())[0]!.content).toBe(
      "User likes green tea.",
    );
    const [first, second] = server.requests;
    expect(server.requests).toHaveLength(2);
    expect(first!.path).toBe("/v1/chat/completions");
    expect(first!.authorization).toBe("Bearer test-key");
    expect(first!.body).toMatchObject({
      model: "fake-chat-model",
      stream: true,
      stream_options: { include_usage: true },
    });
    const messages = first!.body.messages as Array<Record<string, unknown>>;
    expect(messages[0]).toMatchObject({
      role: "system",
      content: expect.stringContaining("MEMORY (Facts about the user)"),
    });
    expect(messages[1]).toEqual({ role: "user", content: "I like green tea." });
    const tools = first!.body.tools as Array<{
      type: string;
      function: { name: string; parameters: { properties: object } };
    }>;
    expect(tools.map((tool) => tool.function.name)).toEqual(["set_context"]);
    expect(tools[0]!.function.parameters.properties).toHaveProperty("label");
    // Step 2 sends the call and its result back.
    const followUp = second!.body.messages as Array<Record<string, unknown>>;
    expect(followUp.at(-2)).toMatchObject({
      role: "assistant",
      tool_calls: [{ id: "call_1", function: { name: "set_context" } }],
    });
    expect(followUp.at(-1)).toMatchObject({
      role: "tool",
      tool_call_id: "call_1",
      content: expect.stringContaining("Written to memory"),
    });
    const answer = (await session.getHistory())[1]!;
    expect(answer.parts.map((part) => part.type)).toEqual([
      "step-start",
      "tool-set_context",
      "step-start",
      "text",
    ]);
    expect(answer.metadata).toMatchObject({ model: "fake-chat-model" });
  });

  it("summarizes with the separate summary model through a plain JSON completion", async () => {
    server = await startFakeOpenAIServer([{ text: "## Topic\nTea." }]);
    const models = await modelFromEnv(env(server.baseURL));
    const session = Session.create(openSqlite(":memory:")).onCompaction(
      createCompactFunction({
        summarize: summarizeWith(models!.summaryModel),
        protectHead: 1,
        tailTokenBudget: 10,
      }),
    );
    for (let index = 1; index <= 6; index++) {
      await session.appendMessage({
        id: `m${index}`,
        role: index % 2 ? "user" : "assistant",
        parts: [{ type: "text", text: `tea message ${index} about oolong` }],
      });
    }

    const result = await session.compact();

    expect(result?.summary).toBe("## Topic\nTea.");
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.body).toMatchObject({
      model: "fake-summary-model",
      temperature: 0,
    });
    expect(server.requests[0]!.body.stream).not.toBe(true);
  });
});
