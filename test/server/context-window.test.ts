// GET /v1/sessions/{id}/context (docs/server.md#context-blocks-and-the-prompt): what a turn would
// send, computed on each read. The prompt with each block's section, the history at a leaf after
// overlays and read-time truncation with the settings from the query, Arbor's tools with their JSON
// Schemas, each counted with the store's estimate; bad settings and unknown leaves are typed errors.
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/server/index.js";
import { SessionManager } from "../../src/session/index.js";
import { openSqlite } from "../../src/sqlite/index.js";
import {
  estimateStringTokens,
  estimateStringTokensMultilingual,
} from "../../src/utils/index.js";
import { client } from "./support/client.js";

const LONG = "word ".repeat(400).trim();

async function seeded() {
  const manager = SessionManager.create(openSqlite(":memory:"))
    .withContext("memory", { description: "Facts", maxTokens: 100 })
    .withContext("rules", { provider: { get: async () => "Be brief." } })
    .withContext("unset", { provider: { get: async () => null } });
  const { id } = await manager.create("Context");
  const session = manager.getSession(id);
  await session.appendMessage({
    id: "u1",
    role: "user",
    parts: [{ type: "text", text: LONG }],
  });
  await session.appendMessage({
    id: "a1",
    role: "assistant",
    parts: [{ type: "text", text: "Noted." }],
  });
  await session.appendMessage({
    id: "u2",
    role: "user",
    parts: [{ type: "text", text: "And then?" }],
  });
  // A second branch from u1.
  await session.appendMessage(
    { id: "a1b", role: "assistant", parts: [{ type: "text", text: "Other" }] },
    "u1",
  );
  await session.switchBranch("u2");
  await session.replaceContextBlock("memory", "Likes trains");
  return { call: client(createApp({ manager })), id };
}

describe("GET /v1/sessions/{id}/context", () => {
  it("answers the prompt with each block, the truncated history and the tools, each counted", async () => {
    const { call, id } = await seeded();
    const answer = await call("GET", `/v1/sessions/${id}/context`);
    expect(answer.status).toBe(200);
    const body = answer.body;
    // A new SQLite store records the multilingual estimate: every count here uses it.
    expect(body.counter).toBe("multilingual");
    expect(body.leafId).toBe("u2");
    expect(body.truncation).toEqual({
      keepRecent: 4,
      maxToolOutputChars: 500,
      maxTextChars: 10_000,
    });
    expect(body.system.source).toBe("current");
    expect(body.system.tokens).toBe(
      estimateStringTokensMultilingual(body.system.text),
    );
    expect(
      body.system.blocks.map((block: { label: string }) => block.label),
    ).toEqual(["memory", "rules", "unset"]);
    const memory = body.system.blocks[0];
    expect(memory).toMatchObject({
      writable: true,
      rendered: true,
      maxTokens: 100,
      contentTokens: estimateStringTokens("Likes trains"),
    });
    expect(body.system.text).toContain(memory.text);
    // A read-only block renders its content; an empty one does not render: no section, no tokens.
    expect(body.system.blocks[1]).toMatchObject({
      writable: false,
      rendered: true,
    });
    expect(body.system.text).toContain(body.system.blocks[1].text);
    expect(body.system.blocks[2]).toMatchObject({ rendered: false, tokens: 0 });
    expect(body.system.text).not.toContain("UNSET");
    expect(
      body.messages.map((part: { message: { id: string } }) => part.message.id),
    ).toEqual(["u1", "a1", "u2"]);
    expect(
      body.messages.every((part: { truncated: boolean }) => !part.truncated),
    ).toBe(true);
    expect(body.messages[0].tokens).toBe(
      4 + estimateStringTokensMultilingual(LONG),
    );
    expect(body.tools.map((tool: { name: string }) => tool.name)).toEqual([
      "set_context",
    ]);
    expect(body.tools[0].inputSchema).toMatchObject({ type: "object" });
    expect(body.totals.all).toBe(
      body.totals.system + body.totals.messages + body.totals.tools,
    );
  });

  it("applies the truncation settings of the query, or none, at the leaf asked for", async () => {
    const { call, id } = await seeded();
    const truncated = await call(
      "GET",
      `/v1/sessions/${id}/context?keepRecent=1&maxTextChars=100`,
    );
    expect(truncated.status).toBe(200);
    const first = truncated.body.messages[0];
    expect(first.truncated).toBe(true);
    expect(first.message.parts[0].text.length).toBeLessThan(LONG.length);
    expect(truncated.body.messages[2].truncated).toBe(false);
    const whole = await call(
      "GET",
      `/v1/sessions/${id}/context?truncate=false&keepRecent=0&leafId=a1b`,
    );
    expect(whole.body.truncation).toBe(null);
    expect(
      whole.body.messages.map(
        (part: { message: { id: string } }) => part.message.id,
      ),
    ).toEqual(["u1", "a1b"]);
    expect(whole.body.messages[0].message.parts[0].text).toBe(LONG);
  });

  it("refuses bad settings and unknown leaves with typed errors", async () => {
    const { call, id } = await seeded();
    const negative = await call(
      "GET",
      `/v1/sessions/${id}/context?keepRecent=-1`,
    );
    expect(negative.status).toBe(400);
    expect(negative.body.error.code).toBe("INVALID_REQUEST");
    const leaf = await call("GET", `/v1/sessions/${id}/context?leafId=nope`);
    expect(leaf.status).toBe(404);
    expect(leaf.body.error.code).toBe("MESSAGE_NOT_FOUND");
    const session = await call("GET", `/v1/sessions/nope/context`);
    expect(session.status).toBe(404);
    expect(session.body.error.code).toBe("SESSION_NOT_FOUND");
  });

  it("answers an empty session with its prompt and tools and no messages", async () => {
    const manager = SessionManager.create(openSqlite(":memory:")).withContext(
      "memory",
    );
    const { id } = await manager.create("Empty");
    const answer = await client(createApp({ manager }))(
      "GET",
      `/v1/sessions/${id}/context`,
    );
    expect(answer.status).toBe(200);
    expect(answer.body.messages).toEqual([]);
    expect(answer.body.leafId).toBe(null);
    expect(answer.body.tools).toHaveLength(1);
  });
});
