// arbor-memory/formats loads and runs in workerd without nodejs_compat: a Worker bundled by
// rolldown parses a posted Pi session (or inflates a ChatGPT export zip) and imports it into an
// in-memory SessionManager.
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, expect, it } from "vitest";
import { bundleWorker } from "../providers/support/bundle-worker.js";
import { fixture } from "./support.js";
import { writeZip } from "./zip-writer.js";

const FORMATS = fileURLToPath(
  new URL("../../src/formats/index.ts", import.meta.url),
);
const SESSION = fileURLToPath(
  new URL("../../src/session/index.ts", import.meta.url),
);

let worker: Miniflare | undefined;

beforeAll(async () => {
  const source = `
    import { importConversations, isZip, parseChatGptZip, parseConversations, toArborJsonl } from ${JSON.stringify(FORMATS)};
    import { SessionManager } from ${JSON.stringify(SESSION)};
    export default {
      async fetch(request) {
        try {
          const manager = SessionManager.inMemory();
          const bytes = new Uint8Array(await request.arrayBuffer());
          const parsed = isZip(bytes)
            ? await parseChatGptZip(bytes)
            : parseConversations(new TextDecoder().decode(bytes));
          const [info] = await importConversations(manager, parsed);
          const history = await manager.getSession(info.id).getHistory();
          const jsonl = toArborJsonl(await manager.exportSession(info.id));
          return Response.json({ name: info.name, ids: history.map((m) => m.id), lines: jsonl.trim().split("\\n").length });
        } catch (error) {
          return Response.json({ code: error.code, message: error.message }, { status: 400 });
        }
      },
    };`;
  worker = new Miniflare({
    modules: true,
    script: await bundleWorker({ source }),
    compatibilityDate: "2025-01-01",
  });
  await worker.ready;
}, 120_000);
afterAll(() => worker?.dispose());

it("parses and imports a Pi session inside workerd", async () => {
  const response = await worker!.dispatchFetch("http://formats/", {
    method: "POST",
    body: fixture("pi-session.jsonl"),
  });
  const reply = (await response.json()) as {
    name: string;
    ids: string[];
    lines: number;
  };
  expect(reply.name).toBe("Fix /orders 500 after deploy");
  expect(reply.ids.slice(1)).toEqual([
    "a3000001",
    "u3000001",
    "a6000001",
    "u4000001",
    "a7000001",
  ]);
  // Header, 11 messages, 1 overlay.
  expect(reply.lines).toBe(13);
});

it("inflates a ChatGPT export zip and imports it inside workerd", async () => {
  const zip = writeZip([
    {
      name: "conversations.json",
      data: Buffer.from(fixture("chatgpt-conversations.json")),
    },
  ]);
  const response = await worker!.dispatchFetch("http://formats/", {
    method: "POST",
    body: new Uint8Array(zip),
  });
  const reply = (await response.json()) as { name: string; ids: string[] };
  expect(reply.name).toBe("Lisbon weekend plan");
  expect(reply.ids).toEqual(["u-0001", "a-0002", "u-0003", "a-0006"]);
});

it("reports INVALID_IMPORT from inside workerd", async () => {
  const response = await worker!.dispatchFetch("http://formats/", {
    method: "POST",
    body: fixture("bad-missing-parent.pi.jsonl"),
  });
  expect(response.status).toBe(400);
  expect(await response.json()).toEqual({
    code: "INVALID_IMPORT",
    message:
      'line 7: the parent "deadbeef" of "t1000001" is not in the file (a trimmed file? import it with lenient to attach such entries to the root)',
  });
});
