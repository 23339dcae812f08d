// Hostile input to the HTTP API (createApp), beyond the malformed-input battery of test/server
// (broken JSON, wrong shapes, NULs, 2,000-deep bodies): lone surrogates escaped in JSON strings,
// bodies that are not UTF-8, 10,000- and 100,000-deep nesting, oversized bodies with and without
// a Content-Length, and SQL and full-text injection strings as ids, names, texts and queries.
// Every answer is below 500 and, from 400 on, in the error shape; afterwards the storage is intact.
import { createApp } from "../../../src/server/index.js";
import type { SessionManager } from "../../../src/session/index.js";
import { client, ROUTES, type Call } from "../../server/support/client.js";
import { fill, SAMPLES, seedSession } from "../../server/support/samples.js";
import { INJECTIONS } from "./library-cases.js";

type Body = string | Uint8Array | ReadableStream<Uint8Array>;

/** A backend for the HTTP cases: a manager over fresh storage and its engine checks. */
export interface HttpBackend {
  manager(): SessionManager;
  integrity(): Promise<void>;
}

const LONE_SURROGATES = String.raw`{"name":"\ud800 name","message":{"id":"\udc00id","role":"user","parts":[{"type":"text","text":"lone \udbff text"}]},"parentId":"\udfff","leafId":"\ud800","content":"\ud800 block","summary":"\udc00","fromMessageId":"\ud800","toMessageId":"\udc00","messageId":"\ud800","version":1}`;

const ONLY_TEXT_SURROGATE = String.raw`{"message":{"role":"user","parts":[{"type":"text","text":"lone \ud800 in text only"}]}}`;

/** `{"a":{"a":…}}` and `[[[…]]]`, `depth` levels, as raw JSON text. */
function deepJson(depth: number): string[] {
  return [
    `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`,
    `${"[".repeat(depth)}${"]".repeat(depth)}`,
    `{"message":${'{"a":'.repeat(depth)}1${"}".repeat(depth)}}`,
  ];
}

/** Runs every hostile request against a fresh app over `backend`; returns the failures. */
export async function hostileHttp(backend: HttpBackend): Promise<string[]> {
  const manager = backend.manager().withContext("memory", { maxTokens: 500 });
  const app = createApp({ manager });
  const call = client(app);
  const seeded = await seedSession(call, "target");
  const failures: string[] = [];
  const expectSafe = async (
    what: string,
    send: () => Promise<{ status: number; text: string; body?: any }>,
  ) => {
    let answer: { status: number; text: string; body?: any };
    try {
      answer = await send();
    } catch (error) {
      failures.push(`${what}: threw ${String(error).slice(0, 200)}`);
      return;
    }
    const shaped =
      answer.status < 400 ||
      (typeof answer.body?.error?.code === "string" &&
        typeof answer.body.error.message === "string");
    if (answer.status >= 500 || !shaped)
      failures.push(`${what} → ${answer.status} ${answer.text.slice(0, 160)}`);
  };
  const raw = (method: string, path: string, body: Body, headers = {}) =>
    requestRaw(app, method, path, body, headers);
  const writeRoutes = ROUTES.filter(
    (route) =>
      !route.path.endsWith("/events") &&
      route.method !== "get" &&
      route.method !== "delete",
  );

  // Lone surrogates, non-UTF-8 bytes and deep nesting, to every route that takes a body.
  const bodies: Array<[string, Body]> = [
    ["lone surrogates", LONE_SURROGATES],
    ["a lone surrogate in the text only", ONLY_TEXT_SURROGATE],
    [
      "bytes that are not UTF-8",
      new Uint8Array([
        0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3,
        0x22, 0x7d,
      ]),
    ],
    ["a UTF-8 BOM", `\ufeff{"name":"bom"}`],
    ...deepJson(10_000).map((json): [string, string] => ["10,000-deep", json]),
    ...deepJson(100_000).map((json): [string, string] => [
      "100,000-deep",
      json,
    ]),
  ];
  for (const route of writeRoutes) {
    const method = route.method.toUpperCase();
    const path = fill(route.path, seeded);
    for (const [name, body] of bodies)
      await expectSafe(`${method} ${route.path} with ${name}`, () =>
        raw(method, path, body, { "Content-Type": "application/json" }),
      );
  }
  await backend.integrity();
  await expectIntact(call, seeded.id, failures, "bodies");

  // Oversized bodies: with a Content-Length, and streamed without one.
  const big = `{"name":"${"x".repeat(2 * 1024 * 1024)}"}`;
  const huge = `[${'{"x":"y"},'.repeat(1_200_000)}{}]`;
  for (const [what, path, body] of [
    ["2 MiB to POST /v1/sessions", "/v1/sessions", big],
    ["12 MiB to POST /v1/import", "/v1/import", huge],
  ] as const) {
    await expectSafe(what, async () => {
      const answer = await raw("POST", path, body, {
        "Content-Type": "application/json",
      });
      if (answer.status !== 413)
        failures.push(`${what}: expected 413, got ${answer.status}`);
      return answer;
    });
    await expectSafe(`${what}, streamed`, async () => {
      const answer = await raw("POST", path, stream(body), {
        "Content-Type": "application/json",
      });
      if (answer.status !== 413)
        failures.push(`${what}, streamed: expected 413, got ${answer.status}`);
      return answer;
    });
  }
  await backend.integrity();
  await expectIntact(call, seeded.id, failures, "oversized bodies");

  // Injection strings as names, message ids, texts, block content, queries and path ids.
  for (const evil of INJECTIONS) {
    const short = JSON.stringify(evil.slice(0, 30));
    await expectSafe(`session named ${short}`, () =>
      call("POST", "/v1/sessions", { json: { name: evil } }),
    );
    await expectSafe(`message ${short}`, () =>
      call("POST", `/v1/sessions/${seeded.id}/messages`, {
        json: {
          message: {
            id: evil,
            role: "user",
            parts: [{ type: "text", text: `evil ${evil}` }],
          },
        },
      }),
    );
    const q = encodeURIComponent(evil);
    await expectSafe(`search ${short}`, () =>
      call("GET", `/v1/sessions/${seeded.id}/search?q=${q}`),
    );
    await expectSafe(`search all ${short}`, () =>
      call("GET", `/v1/search?q=${q}`),
    );
    for (const route of ROUTES.filter((r) => r.path.includes("{"))) {
      if (route.path.endsWith("/events")) continue;
      const method = route.method.toUpperCase();
      const sample = SAMPLES[`${method} ${route.path}`] ?? {};
      const path = route.path.replace(/\{(\w+)\}/g, q);
      await expectSafe(`${method} ${route.path} with id ${short}`, () =>
        call(method, sample.query ? `${path}?${sample.query}` : path, {
          ...(sample.json !== undefined ? { json: sample.json } : {}),
          ...(sample.raw !== undefined ? { raw: sample.raw } : {}),
        }),
      );
    }
  }
  await backend.integrity();
  await expectIntact(call, seeded.id, failures, "injections");
  return failures;
}

/** The seeded message still reads back and search still finds it. */
async function expectIntact(
  call: Call,
  id: string,
  failures: string[],
  after: string,
): Promise<void> {
  const message = await call("GET", `/v1/sessions/${id}/messages/u1`);
  if (message.status !== 200 || !message.text.includes("hello from target"))
    failures.push(
      `after ${after}: u1 reads ${message.status} ${message.text.slice(0, 100)}`,
    );
  const found = await call("GET", `/v1/sessions/${id}/search?q=hello`);
  if (found.status !== 200 || !found.text.includes('"u1"'))
    failures.push(
      `after ${after}: search ${found.status} ${found.text.slice(0, 100)}`,
    );
}

async function requestRaw(
  app: ReturnType<typeof createApp>,
  method: string,
  path: string,
  body: Body,
  headers: Record<string, string>,
): Promise<{ status: number; text: string; body?: any }> {
  const init: RequestInit & { duplex?: "half" } = { method, headers, body };
  if (body instanceof ReadableStream) init.duplex = "half";
  const response = await app.request(path, init);
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, text, body: parsed };
}

/** A body without a Content-Length: 64 KiB chunks. */
function stream(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(at, at + 65_536));
      at += 65_536;
    },
  });
}
