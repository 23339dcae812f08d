// A well-formed request for every route (by method and path template), so the malformed-input
// battery and the tenant-isolation test can reach every handler past validation.
import type { Call } from "./client.js";
import { text } from "./client.js";

export interface Sample {
  query?: string;
  json?: unknown;
  raw?: string;
}

/** Valid inputs per "METHOD /path/{template}". Routes absent here need none. */
export const SAMPLES: Record<string, Sample> = {
  "POST /v1/sessions": { json: { name: "n" } },
  "PATCH /v1/sessions/{id}": { json: { name: "renamed" } },
  "POST /v1/sessions/{id}/fork": { json: { messageId: "u1" } },
  "GET /v1/sessions/{id}/history/recent": { query: "maxBytes=1000" },
  "POST /v1/sessions/{id}/messages": {
    json: { message: text("new-1", "x"), parentId: "u1" },
  },
  "PUT /v1/sessions/{id}/messages/{messageId}": {
    json: { message: text(undefined, "changed") },
  },
  "PUT /v1/sessions/{id}/leaf": { json: { leafId: "u1" } },
  "POST /v1/sessions/{id}/compactions": {
    json: { summary: "s", fromMessageId: "u1", toMessageId: "a1" },
  },
  "POST /v1/sessions/{id}/compact": { json: {} },
  "POST /v1/sessions/{id}/blocks": { json: { label: "sample" } },
  "PUT /v1/sessions/{id}/blocks/{label}": { json: { content: "overwritten" } },
  "POST /v1/sessions/{id}/blocks/{label}/revert": { json: { version: 1 } },
  "GET /v1/sessions/{id}/search": { query: "q=hello" },
  "GET /v1/search": { query: "q=hello" },
  "GET /v1/sessions/{id}/export": { query: "format=jsonl" },
  "POST /v1/import": { raw: "[]" },
};

/** Ids of one seeded session: messages u1 → a1, a block write, one overlay. */
export interface Seeded {
  id: string;
  messageId: string;
  label: string;
  compactionId: string;
}

/** Creates a session with messages `<prefix>u1 → <prefix>a1`, a block version and an overlay. */
export async function seedSession(
  call: Call,
  name: string,
  prefix = "",
): Promise<Seeded> {
  const { id } = (await call("POST", "/v1/sessions", { json: { name } })).body;
  const [u1, a1] = [`${prefix}u1`, `${prefix}a1`];
  await call("POST", `/v1/sessions/${id}/messages`, {
    json: { message: text(u1, `hello from ${name}`) },
  });
  await call("POST", `/v1/sessions/${id}/messages`, {
    json: { message: text(a1, "hi", "assistant") },
  });
  await call("PUT", `/v1/sessions/${id}/blocks/memory`, {
    json: { content: `${name} facts` },
  });
  const overlay = await call("POST", `/v1/sessions/${id}/compactions`, {
    json: { summary: "summary", fromMessageId: u1, toMessageId: u1 },
  });
  if (overlay.status !== 201)
    throw new Error(`seeding failed: ${overlay.text}`);
  return { id, messageId: a1, label: "memory", compactionId: overlay.body.id };
}

/** A concrete path from a template and ids. */
export function fill(template: string, ids: Partial<Seeded>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) =>
    encodeURIComponent(String(ids[name as keyof Seeded] ?? "")),
  );
}
