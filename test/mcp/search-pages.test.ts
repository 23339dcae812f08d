// search_memory's cursor pages against createApp() in this process: the pages, whatever their
// sizes, concatenate to one ranking through its first 500 results, and that ranking starts with
// the results of every smaller search (docs/search.md, stable rankings). In memory and on SQLite.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpEndpoint } from "../../src/mcp/index.js";
import { createApp } from "../../src/server/index.js";
import { SessionManager } from "../../src/session/index.js";
import { openSqlite } from "../../src/sqlite/index.js";
import { stableRankingTexts } from "../../src/testing/spec/search-stable.js";
import { connectHttp } from "./support/http-client.js";
import { ok } from "./support/suite.js";

const QUERY = "kiwi banana";

for (const [name, open] of [
  ["in memory", () => SessionManager.inMemory()],
  ["on SQLite", () => SessionManager.create(openSqlite(":memory:"))],
] as const) {
  describe(`search_memory pages ${name}`, () => {
    const manager = open();
    let client: Client;

    beforeAll(async () => {
      // Two sessions of 400 messages each: about 700 match the query, more than 500.
      for (const [session, seed] of [
        ["kiwis", 45],
        ["bananas", 46],
      ] as const) {
        const { id } = await manager.create(session);
        const texts = stableRankingTexts(400, seed);
        await manager.appendAll(
          id,
          texts.map((text, index) => ({
            id: `${session}-${index}`,
            role: index % 2 === 0 ? "user" : "assistant",
            parts: [{ type: "text" as const, text }],
          })),
        );
      }
      const app = createApp({ manager, mcp: mcpEndpoint() });
      client = await connectHttp("http://127.0.0.1/mcp", {
        fetch: (input: string | URL | Request, init?: RequestInit) =>
          Promise.resolve(app.fetch(new Request(input, init))),
      });
    });
    afterAll(async () => {
      await client?.close();
    });

    it("concatenate to one ranking through 500 results, the start of every smaller search", async () => {
      const seen: string[] = [];
      let cursor: string | undefined;
      // Page sizes vary; each page may also stop early at the token budget.
      const sizes = [7, 100, 33, 100, 1, 100, 64, 100, 100];
      for (let page = 0; seen.length < 500 && page < 200; page++) {
        const answer = await ok(client, "search_memory", {
          query: QUERY,
          limit: sizes[page % sizes.length],
          ...(cursor ? { cursor } : {}),
        });
        seen.push(...answer.results.map((hit: any) => hit.messageId));
        cursor = answer.nextCursor ?? undefined;
        if (!cursor) break;
      }
      expect(seen.length).toBeGreaterThanOrEqual(500);
      expect(new Set(seen).size).toBe(seen.length);
      const ranking = seen.slice(0, 500);
      for (const limit of [1, 5, 10, 20, 50, 100]) {
        const first = await ok(client, "search_memory", {
          query: QUERY,
          limit,
        });
        expect(
          first.results.map((hit: any) => hit.messageId),
          `limit ${limit}`,
        ).toEqual(ranking.slice(0, first.results.length));
        const direct = await manager.search(QUERY, { limit, mode: "text" });
        expect(direct.map((hit) => hit.id)).toEqual(ranking.slice(0, limit));
      }
    });

    it("takes prefix: the last word matches as the start of a word", async () => {
      const whole = await ok(client, "search_memory", { query: "kiwi banan" });
      const typed = await ok(client, "search_memory", {
        query: "kiwi banan",
        prefix: "last",
        limit: 20,
      });
      const words = await ok(client, "search_memory", {
        query: "kiwi banana",
        limit: 20,
      });
      expect(typed.results.map((hit: any) => hit.messageId)).toEqual(
        words.results.map((hit: any) => hit.messageId),
      );
      expect(whole.results.map((hit: any) => hit.messageId)).not.toEqual(
        typed.results.map((hit: any) => hit.messageId).slice(0, 10),
      );
    });
  });
}
