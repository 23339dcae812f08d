// The AI SDK path of withEmbeddings(): an @ai-sdk/openai-compatible embedding model, built from
// ARBOR_BASE_URL and ARBOR_EMBEDDING_MODEL, talking to a loopback fake of the OpenAI
// `/v1/embeddings` endpoint (a node http server that embeds with the fake deterministic embedder).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embeddingModelFromEnv } from "../../src/agent/index.js";
import { SessionManager } from "../../src/session/index.js";
import { fakeEmbedder } from "../../src/testing/index.js";
import { openSqlite } from "../../src/sqlite/index.js";
import { text } from "./recall-scenarios.js";

interface EmbeddingRequest {
  model: string;
  input: string[];
  dimensions?: number;
}

const requests: EmbeddingRequest[] = [];
let server: Server;
let baseURL = "";
let failNext = 0;

beforeAll(async () => {
  const embed = fakeEmbedder({ dimensions: 64 });
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      void (async () => {
        if (req.method !== "POST" || req.url !== "/v1/embeddings") {
          res.writeHead(404).end();
          return;
        }
        const request = JSON.parse(body) as EmbeddingRequest;
        requests.push(request);
        if (failNext > 0) {
          failNext--;
          res.writeHead(503, { "content-type": "application/json" });
          res.end(JSON.stringify({ error: { message: "overloaded" } }));
          return;
        }
        const vectors = await embed(request.input);
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            object: "list",
            model: request.model,
            data: vectors.map((embedding, index) => ({
              object: "embedding",
              index,
              embedding,
            })),
            usage: { prompt_tokens: 1, total_tokens: 1 },
          }),
        );
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

describe("withEmbeddings() over an AI SDK embedding model (loopback fake /v1/embeddings)", () => {
  it("embeds appended messages in batches and finds a synonym-only match", async () => {
    const model = await embeddingModelFromEnv({
      ARBOR_BASE_URL: baseURL,
      ARBOR_EMBEDDING_MODEL: "fake-embed-64",
    });
    expect(model).not.toBeNull();
    const db = openSqlite(":memory:");
    const manager = SessionManager.create(db).withEmbeddings(model!, {
      dimensions: 64,
      batchSize: 2,
    });
    const { id } = await manager.create("ai-sdk");
    const session = manager.getSession(id);
    for (const [n, body] of [
      "We ship on Friday",
      "The cat sleeps",
      "Noted",
    ].entries())
      await session.appendMessage(text(`m${n}`, "user", body));
    failNext = 1;
    await manager.flushEmbeddings();
    const calls = requests.filter((r) => r.model === "fake-embed-64");
    expect(calls.every((r) => r.input.length <= 2)).toBe(true);
    expect(calls.every((r) => r.dimensions === 64)).toBe(true);
    expect(calls.flatMap((r) => r.input)).toEqual(
      expect.arrayContaining(["We ship on Friday", "The cat sleeps", "Noted"]),
    );
    const [hit] = await session.search("launch");
    expect(hit).toMatchObject({
      id: "m0",
      matched: { text: false, semantic: true },
    });
    const stored = db.sql<{ model: string; dimensions: number }>`
      SELECT DISTINCT model, dimensions FROM arbor_embeddings`;
    expect(stored).toEqual([{ model: "fake-embed-64", dimensions: 64 }]);
    db.close();
  });

  it("is null without ARBOR_EMBEDDING_MODEL and INVALID_ARGUMENT without ARBOR_BASE_URL", async () => {
    expect(await embeddingModelFromEnv({ ARBOR_BASE_URL: baseURL })).toBeNull();
    await expect(
      embeddingModelFromEnv({ ARBOR_EMBEDDING_MODEL: "x" }),
    ).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
  });

  it("rejects a vector of the wrong length with the embedder's error, and keeps the item queued", async () => {
    const model = await embeddingModelFromEnv({
      ARBOR_BASE_URL: baseURL,
      ARBOR_EMBEDDING_MODEL: "fake-embed-64",
    });
    const db = openSqlite(":memory:");
    const manager = SessionManager.create(db).withEmbeddings(model!, {
      dimensions: 32,
    });
    const { id } = await manager.create("wrong-size");
    await manager.getSession(id).appendMessage(text("m1", "user", "hello"));
    await expect(manager.flushEmbeddings()).rejects.toThrow(/64 dimensions/);
    expect(db.sql`SELECT COUNT(*) AS n FROM arbor_embedding_queue`).toEqual([
      { n: 1 },
    ]);
    db.close();
  }, 60_000);
});
