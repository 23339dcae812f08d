// A text part's `text` must be a string: the core's message check refuses a number, `null`, an
// object or an array with INVALID_MESSAGE before any write, so the Session API throws, the HTTP
// API answers 400, and MCP (through the SDK's own Client) answers an error result; nothing is
// stored in any of them. Invalid UTF-8 in a body is not refused: it reads as U+FFFD.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpEndpoint } from "../../src/mcp/index.js";
import { createApp } from "../../src/server/index.js";
import { Session, SessionManager } from "../../src/session/index.js";
import { openSqlite } from "../../src/sqlite/index.js";
import { connectHttp } from "../mcp/support/http-client.js";
import { call as mcpCall, textOf } from "../mcp/support/suite.js";
import { client } from "./support/client.js";

const BAD_TEXTS: Array<[string, unknown]> = [
  ["a number", 42],
  ["null", null],
  ["an object", { value: "hi" }],
  ["an array", ["hi"]],
];

describe("text parts whose text is not a string", () => {
  it.each(BAD_TEXTS)(
    "Session API (SQLite): text as %s throws INVALID_MESSAGE and stores nothing",
    async (_name, text) => {
      const db = openSqlite(":memory:");
      try {
        const session = Session.create(db).forSession("s1");
        await session.appendMessage({
          id: "ok",
          role: "user",
          parts: [{ type: "text", text: "fine" }],
        });
        const bad = {
          id: "bad",
          role: "user",
          parts: [{ type: "text", text }],
        } as never;
        await expect(session.appendMessage(bad)).rejects.toMatchObject({
          code: "INVALID_MESSAGE",
        });
        await expect(
          session.updateMessage({ ...(bad as object), id: "ok" } as never),
        ).rejects.toMatchObject({ code: "INVALID_MESSAGE" });
        expect(await session.getMessage("bad")).toBeNull();
        expect((await session.getHistory()).map((m) => m.parts)).toEqual([
          [{ type: "text", text: "fine" }],
        ]);
      } finally {
        db.close();
      }
    },
  );

  it.each(BAD_TEXTS)(
    "HTTP: text as %s answers 400 INVALID_MESSAGE and stores nothing",
    async (_name, text) => {
      const call = client(createApp({ manager: SessionManager.inMemory() }));
      const created = await call("POST", "/v1/sessions", {
        json: { name: "T" },
      });
      const id = created.body.id as string;
      const answer = await call("POST", `/v1/sessions/${id}/messages`, {
        json: {
          message: { id: "bad", role: "user", parts: [{ type: "text", text }] },
        },
      });
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe("INVALID_MESSAGE");
      expect(answer.body.error.message).toContain("text part 0");
      const history = await call("GET", `/v1/sessions/${id}/history`);
      expect(history.body.messages, history.text).toEqual([]);
    },
  );

  it("HTTP: invalid UTF-8 in a body is stored as U+FFFD, as the decoder reads it (documented)", async () => {
    const call = client(createApp({ manager: SessionManager.inMemory() }));
    const created = await call("POST", "/v1/sessions", { json: { name: "T" } });
    const id = created.body.id as string;
    const head = new TextEncoder().encode(
      '{"message":{"id":"u1","role":"user","parts":[{"type":"text","text":"a',
    );
    const tail = new TextEncoder().encode('b"}]}}');
    const raw = new Uint8Array([...head, 0xff, 0xc3, ...tail]);
    const answer = await call("POST", `/v1/sessions/${id}/messages`, {
      raw,
      headers: { "Content-Type": "application/json" },
    });
    expect(answer.status).toBe(201);
    const history = await call("GET", `/v1/sessions/${id}/history`);
    expect(history.body.messages[0].parts[0].text).toBe("a\uFFFD\uFFFDb");
  });

  describe("MCP, with the SDK's own Client", () => {
    const manager = SessionManager.inMemory();
    const app = createApp({ manager, mcp: mcpEndpoint() });
    let mcp: Client;
    beforeAll(async () => {
      mcp = await connectHttp("http://127.0.0.1/mcp", {
        fetch: (input: string | URL | Request, init?: RequestInit) =>
          Promise.resolve(app.fetch(new Request(input, init))),
      });
    });
    afterAll(async () => {
      await mcp?.close();
    });

    it.each(BAD_TEXTS)(
      "remember with text as %s is an error result and stores nothing",
      async (_name, text) => {
        const result = await mcpCall(mcp, "remember", { text });
        expect(result.isError, JSON.stringify(result)).toBe(true);
        expect(textOf(result)).toMatch(/INVALID_(ARGUMENT|MESSAGE)/);
        expect((await manager.list()).length).toBe(0);
      },
    );
  });
});
