// Malformed input against every route the app declares: each answer is a 4xx in the error shape,
// never a 5xx. Bodies: broken JSON, wrong shapes, wrong types, the wrong media type. Queries and
// path segments: out of range, empty, too long, badly percent-encoded.
import { expect, it } from "vitest";
import { createApp } from "../../../src/server/index.js";
import type { WithStore } from "./api-suite.js";
import { client, ROUTES, type CallOptions } from "./client.js";
import { fill, SAMPLES, seedSession } from "./samples.js";

const BAD_BODIES: CallOptions[] = [
  { raw: "{", headers: { "Content-Type": "application/json" } },
  { raw: '{"a":', headers: { "Content-Type": "application/json" } },
  { json: [] },
  { json: "text" },
  { json: null },
  { json: 42 },
  { json: {} },
  {
    json: {
      name: 5,
      message: "m",
      parentId: 7,
      leafId: [],
      content: {},
      version: "x",
      summary: 1,
      messageId: {},
    },
  },
  { json: { message: { id: 5, role: "robot", parts: "none" } } },
  { json: { message: { role: "user", parts: [{ text: "no type" }] } } },
  { json: { version: 1.5, leafId: "", name: "", content: 5 } },
  { json: nested(2000) },
  {
    json: {
      name: "nul\u0000",
      message: {
        id: "n\u0000",
        role: "user",
        parts: [{ type: "text", text: "nul\u0000" }],
      },
      parentId: "\u0000",
      leafId: "\u0000",
      content: "\u0000",
      summary: "\u0000",
      fromMessageId: "\u0000",
      toMessageId: "\u0000",
      messageId: "\u0000",
      version: 1,
    },
  },
  {
    json: {
      message: {
        role: "user",
        parts: [{ type: "text", text: "only the text has a nul \u0000" }],
      },
    },
  },
  { raw: '{"name":"x"}', headers: { "Content-Type": "text/plain" } },
  { raw: '{"name":"x"}' },
];

const BAD_QUERIES = [
  "limit=-1",
  "limit=abc",
  "limit=1e9",
  "maxBytes=0",
  "maxBytes=abc",
  "format=xml",
  "q=",
  "leafId=",
  "cursor=%E0%A4%A",
  "cursor=not-a-cursor",
  "sessionId=",
  "q=%00",
  "leafId=%00",
  "cursor=%00",
  "owner=%00",
];

const BAD_IDS = ["x".repeat(600), "%E0%A4%A", "%00", "..", "a b"];

export function malformedCases(withStore: WithStore): void {
  it(
    "answers every malformed request with a 4xx error, never a 5xx",
    { timeout: 120_000 },
    () =>
      withStore(async (store) => {
        const manager = store
          .manager()
          .withContext("memory", { maxTokens: 200 })
          .withCachedPrompt();
        const call = client(createApp({ manager }));
        const seeded = await seedSession(call, "target");
        const failures: string[] = [];
        const check = async (
          method: string,
          path: string,
          options: CallOptions,
        ) => {
          const answer = await call(method, path, options);
          const shaped =
            answer.status < 400 ||
            (typeof answer.body?.error?.code === "string" &&
              typeof answer.body.error.message === "string");
          if (answer.status >= 500 || !shaped)
            failures.push(
              `${method} ${path} ${JSON.stringify(options).slice(0, 80)} → ${answer.status} ${answer.text.slice(0, 120)}`,
            );
        };
        for (const route of ROUTES) {
          const method = route.method.toUpperCase();
          const sample = SAMPLES[`${method} ${route.path}`] ?? {};
          const path = fill(route.path, seeded);
          const streaming = route.path.endsWith("/events");
          if (!streaming && method !== "GET" && method !== "DELETE") {
            for (const body of BAD_BODIES)
              await check(method, withQuery(path, sample.query), body);
          }
          if (!streaming) {
            for (const query of BAD_QUERIES)
              await check(method, withQuery(path, query), bodyOf(sample));
          }
          for (const bad of BAD_IDS) {
            const raw = route.path.replace(/\{(\w+)\}/g, bad);
            await check(method, withQuery(raw, sample.query), bodyOf(sample));
          }
        }
        // The codes a client can act on.
        const broken = await call("POST", "/v1/sessions", BAD_BODIES[0]);
        expect([broken.status, broken.body.error.code]).toEqual([
          400,
          "INVALID_JSON",
        ]);
        const wrongType = await call("POST", "/v1/sessions", {
          json: { name: 5 },
        });
        expect([wrongType.status, wrongType.body.error.code]).toEqual([
          400,
          "INVALID_REQUEST",
        ]);
        expect(wrongType.body.error.message).toContain("body.name");
        const plain = await call("POST", "/v1/sessions", BAD_BODIES.at(-1));
        expect(plain.status).toBe(415);
        // Without keys a text/plain write is what a web form sends: refused before the route.
        const textPlain = await call("POST", "/v1/sessions", BAD_BODIES.at(-2));
        expect([textPlain.status, textPlain.body.error.code]).toEqual([
          403,
          "FORBIDDEN_ORIGIN",
        ]);
        const tooLong = await call("GET", `/v1/sessions/${"x".repeat(600)}`);
        expect(tooLong.body.error.message).toContain("path.id");
        const unknown = await call("GET", "/v1/nowhere", {});
        expect([unknown.status, unknown.body.error.code]).toEqual([
          404,
          "NOT_FOUND",
        ]);
        await check("GET", "/v1/nowhere", {});
        await check("PATCH", "/v1/search", {});
        await check("POST", "/health", {});
        expect(failures).toEqual([]);
      }),
  );
}

function withQuery(path: string, query: string | undefined): string {
  return query ? `${path}?${query}` : path;
}

function bodyOf(sample: { json?: unknown; raw?: string }): CallOptions {
  if (sample.json !== undefined) return { json: sample.json };
  return sample.raw !== undefined ? { raw: sample.raw } : {};
}

function nested(depth: number): unknown {
  let value: unknown = "leaf";
  for (let i = 0; i < depth; i++) value = { message: value };
  return value;
}
