// The chat example's server: Hono on Node, Arbor's chat routes at /api/chat, the React page
// built by Vite. One command from the repository root: `npm run chat` (it builds first).
//
//   npm run chat                                   offline, with the scripted model
//   ARBOR_BASE_URL=http://localhost:11434/v1 ARBOR_MODEL=llama3.2 npm run chat
//   ARBOR_CHAT_AI=5 npm run chat                   the same on ai 5 and @ai-sdk/react 2
//
// Chats are stored in ./chat.db (ARBOR_CHAT_DB). Each browser gets its own owner (a cookie), and
// sees only its own chats. Open http://localhost:5180 (ARBOR_CHAT_PORT).
import { mkdtempSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { modelFromEnv } from "arbor-memory/agent";
import { createChatHandler } from "arbor-memory/ai-sdk";
import { SessionManager } from "arbor-memory/session";
import { openSqlite } from "arbor-memory/sqlite";
import { scriptedModel } from "./scripted-model.mjs";

const HERE = fileURLToPath(new URL(".", import.meta.url));
const ROOT = join(HERE, "../..");
const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".css": "text/css",
};

/**
 * Builds the page and starts the server. `aiVersion` 5 runs the server on ai 5 and builds the
 * page with @ai-sdk/react 2 (the repository's `ai5` and `ai-sdk-react-2` dev dependencies).
 */
export async function startChatExample({
  port = 5180,
  dbPath = "chat.db",
  aiVersion = 6,
  delayMs,
  log = console.log,
} = {}) {
  const ai = aiVersion === 5 ? await import("ai5") : await import("ai");
  const configured = await modelFromEnv();
  const model =
    configured?.model ??
    scriptedModel({ spec: aiVersion === 5 ? "v2" : "v3", delayMs });
  const store = openSqlite(dbPath);
  const manager = SessionManager.create(store).withContext("soul", {
    provider: {
      get: async () => "You are a helpful assistant. Answer briefly.",
    },
    readonly: true,
  });
  const chat = createChatHandler({
    manager,
    ai,
    respond: (ctx) =>
      ai.streamText({
        model,
        system: ctx.system,
        messages: ctx.messages,
        tools: ctx.tools,
        abortSignal: ctx.abortSignal,
        stopWhen: ai.stepCountIs(5),
      }),
  });
  const page = await buildPage(aiVersion);

  const app = new Hono();
  // A demo owner per browser; a real app takes it from its authentication.
  app.use(async (c, next) => {
    let owner = getCookie(c, "arbor-owner");
    if (!owner) {
      owner = crypto.randomUUID();
      setCookie(c, "arbor-owner", owner, { path: "/", httpOnly: true });
    }
    c.set("ownerId", owner);
    await next();
  });
  app.get("/", async (c) => {
    const id = await chat.createChat({ ownerId: c.get("ownerId") });
    return c.redirect(`/chat/${id}`);
  });
  app.all("/api/chat/*", (c) =>
    chat.fetch(c.req.raw, { ownerId: c.get("ownerId") }),
  );
  app.get("/chat/:id", async (c) =>
    c.html(await readFile(join(page, "index.html"), "utf8")),
  );
  app.get("/assets/*", async (c) => {
    const path = join(page, c.req.path);
    if (!path.startsWith(page)) return c.notFound();
    const body = await readFile(path).catch(() => null);
    if (!body) return c.notFound();
    return c.body(body, 200, {
      "content-type": TYPES[extname(path)] ?? "application/octet-stream",
    });
  });

  const server = await new Promise((resolve) => {
    const started = serve(
      { fetch: app.fetch, port, hostname: "127.0.0.1" },
      () => resolve(started),
    );
  });
  const url = `http://127.0.0.1:${server.address().port}`;
  log(
    `Arbor chat on ${url} (${configured ? `model ${configured.settings.model}` : "scripted offline model"}, ai ${aiVersion})`,
  );
  return {
    url,
    async close() {
      await new Promise((resolve) => server.close(resolve));
      store.close();
    },
  };
}

// --- Internal helpers ---

/** Builds the React page with Vite into a temporary folder and returns it. */
async function buildPage(aiVersion) {
  const { build } = await import("vite");
  const outDir = mkdtempSync(join(tmpdir(), "arbor-chat-page-"));
  const modules = join(ROOT, "node_modules");
  const alias = [
    {
      find: /^arbor-memory\/ai-sdk\/react$/,
      replacement: join(ROOT, "dist/ai-sdk/react/index.js"),
    },
  ];
  if (aiVersion === 5)
    alias.push(
      { find: /^ai$/, replacement: join(modules, "ai5/dist/index.mjs") },
      {
        find: /^@ai-sdk\/react$/,
        replacement: join(modules, "ai-sdk-react-2/dist/index.mjs"),
      },
    );
  await build({
    root: join(HERE, "client"),
    base: "/",
    logLevel: "error",
    configFile: false,
    resolve: { alias, dedupe: ["react", "react-dom"] },
    oxc: { jsx: { runtime: "automatic" } },
    build: { outDir, emptyOutDir: true, sourcemap: false },
  });
  return outDir;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await startChatExample({
    port: Number(process.env.ARBOR_CHAT_PORT ?? 5180),
    dbPath: process.env.ARBOR_CHAT_DB ?? "chat.db",
    aiVersion: process.env.ARBOR_CHAT_AI === "5" ? 5 : 6,
  });
}
