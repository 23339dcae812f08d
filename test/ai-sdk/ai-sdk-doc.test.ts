// Keeps docs/ai-sdk.md honest: its route example and its Hono wiring run as printed, with the
// package imports pointed at the sources, the OpenAI model swapped for the scripted fake model of
// scripted-chat-model.ts (the only change) and the database in a temporary folder.
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import type { ChatHandler } from "../../src/ai-sdk/index.js";
import { readChunks, textOf, userMessage } from "./chat-client.js";
import type { ScriptedChatModel } from "./scripted-chat-model.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PAGE = readFileSync(join(ROOT, "docs/ai-sdk.md"), "utf8");
const BLOCKS = [...PAGE.matchAll(/```ts\n([\s\S]*?)```/g)].map(
  (match) => match[1]!,
);
const ENTRIES: Record<string, string> = {
  "arbor-memory/ai-sdk": "src/ai-sdk/index.ts",
  "arbor-memory/session": "src/session/index.ts",
  "arbor-memory/sqlite": "src/sqlite/index.ts",
};
const FOLDER = join(
  ROOT,
  "node_modules/.cache",
  `arbor-ai-sdk-doc-${process.pid}`,
);
mkdirSync(FOLDER, { recursive: true });
const DATA = mkdtempSync(join(tmpdir(), "arbor-ai-sdk-doc-"));

afterAll(() => {
  rmSync(FOLDER, { recursive: true, force: true });
  rmSync(DATA, { recursive: true, force: true });
});

describe("docs/ai-sdk.md (scripted fake model in place of OpenAI)", () => {
  const route = BLOCKS[0]!;
  const hono = BLOCKS[1]!;

  it("the route example answers a useChat request, with its context blocks in the system prompt", async () => {
    expect(route).toContain('import { openai } from "@ai-sdk/openai";');
    const { chat, scripted } = (await runModule(
      "route",
      withScriptedModel(route),
    )) as { chat: ChatHandler; scripted: ScriptedChatModel };
    const chatId = await chat.createChat({ ownerId: "user-1" });
    const response = await chat.fetch(
      new Request("http://app.test/api/chat", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          id: chatId,
          trigger: "submit-message",
          messages: [userMessage("u1", "Hello")],
        }),
      }),
      { ownerId: "user-1" },
    );
    expect(response.status).toBe(200);
    expect(textOf(await readChunks(response))).toBe("Hello from the docs");
    const system = scripted.calls[0]!.prompt.find(
      (message) => message.role === "system",
    );
    expect(String(system?.content)).toContain("You are a helpful assistant.");
    expect((scripted.calls[0]!.tools ?? []).map((tool) => tool.name)).toContain(
      "set_context",
    );
  });

  it("the Hono wiring creates a chat for the signed-in user and serves its routes", async () => {
    // The block makes the app; what the app's authentication does (the signed-in user on the
    // context) goes right after, before its routes.
    const made = /^const app = new Hono.*;.*$/mu;
    expect(hono).toMatch(made);
    const code = `${withScriptedModel(route)}
${hono.replace(
  made,
  (line) => `${line}
app.use(async (c, next) => {
  c.set("userId", "user-1");
  await next();
});`,
)}
export { app };`;
    const { app } = (await runModule("hono", code)) as {
      app: { request(path: string, init?: RequestInit): Promise<Response> };
    };
    const created = await app.request("/chats", { method: "POST" });
    expect(created.status).toBe(302);
    const chatId = created.headers.get("location")!.replace("/chat/", "");
    const sent = await app.request("/api/chat", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id: chatId, messages: [userMessage("u1", "Hi")] }),
    });
    expect(sent.status).toBe(200);
    expect(textOf(await readChunks(sent))).toBe("Hello from the docs");
    let branch: { messages: Array<{ role: string }> } = { messages: [] };
    for (let i = 0; i < 100 && branch.messages.length < 2; i++) {
      branch = (await (
        await app.request(`/api/chat/${chatId}`)
      ).json()) as typeof branch;
      if (branch.messages.length < 2)
        await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(branch.messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
    ]);
  });
});

/** The example with the scripted model for OpenAI's and its database in the temporary folder. */
function withScriptedModel(code: string): string {
  const model = JSON.stringify(
    join(ROOT, "test/ai-sdk/scripted-chat-model.ts"),
  );
  return `${code
    .replace(
      'import { openai } from "@ai-sdk/openai";',
      `import { scriptedChatModel } from ${model};
const scripted = scriptedChatModel(
  Array.from({ length: 4 }, () => ({ parts: [{ type: "text", text: "Hello from the docs" }] })),
);
const openai = (_name: string) => scripted.model;`,
    )
    .replace(
      'openSqlite("chat.db")',
      `openSqlite(${JSON.stringify(join(DATA, `${Math.random()}.db`))})`,
    )}
export { scripted };`;
}

async function runModule(
  name: string,
  code: string,
): Promise<Record<string, unknown>> {
  const file = join(FOLDER, `${name}.ts`);
  writeFileSync(
    file,
    code.replace(/from\s+"([^"]+)"/g, (match, specifier: string) =>
      ENTRIES[specifier]
        ? `from ${JSON.stringify(join(ROOT, ENTRIES[specifier]))}`
        : match,
    ),
  );
  return (await import(file)) as Record<string, unknown>;
}
