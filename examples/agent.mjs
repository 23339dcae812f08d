// A terminal chat agent with persistent, tree-structured memory in ./arbor.db. It talks to any
// OpenAI-compatible endpoint (Ollama, llama.cpp's server, vLLM, OpenAI, …) configured by
// environment variables; see README "Run the example agent". Without one it explains how, and exits.
//
//   npm run build
//   ARBOR_BASE_URL=http://localhost:11434/v1 ARBOR_MODEL=llama3.2 node examples/agent.mjs
//   ... node examples/agent.mjs "Remember that I drink green tea."   (one turn, then exit)
//
// Commands: /memory  /history  /regenerate  /edit <text>  /branches  /quit. Ctrl+C stops an answer.
import { createInterface } from "node:readline";
import {
  MODEL_ENV,
  modelFromEnv,
  SessionAgent,
  summarizeWith,
} from "arbor-memory/agent";
import { Session } from "arbor-memory/session";
import { openSqlite } from "arbor-memory/sqlite";
import { createCompactFunction } from "arbor-memory/utils";

const SOUL =
  "You are a helpful assistant with a long-term memory. When the user tells you something worth " +
  'remembering about them, save it with the set_context tool (block "memory"), then answer briefly.';

const models = await modelFromEnv();
if (!models) {
  const line = (name, text) => `  ${name.padEnd(20)} ${text}`;
  console.log(
    [
      "No model endpoint configured. Point the agent at any OpenAI-compatible server:",
      "",
      line(
        MODEL_ENV.baseURL,
        "the endpoint: http://localhost:11434/v1 (Ollama),",
      ),
      line(
        "",
        "http://localhost:8080/v1 (llama.cpp), http://localhost:8000/v1 (vLLM)",
      ),
      line(MODEL_ENV.model, "the model name the server knows, e.g. llama3.2"),
      line(
        MODEL_ENV.apiKey,
        "optional: sent as a Bearer token (local servers need none)",
      ),
      line(
        MODEL_ENV.summaryModel,
        "optional: a cheaper model for compaction summaries",
      ),
      "",
      `Then: npm run build && ${MODEL_ENV.baseURL}=... ${MODEL_ENV.model}=... node examples/agent.mjs`,
    ].join("\n"),
  );
} else {
  await chat(models);
}

async function chat({ model, summaryModel, settings }) {
  const db = openSqlite(process.env.ARBOR_DB ?? "./arbor.db");
  const session = Session.create(db)
    .forSession(process.env.ARBOR_SESSION ?? "example-agent")
    .withContext("soul", { provider: { get: async () => SOUL } })
    .withContext("memory", {
      description: "Facts about the user, kept across conversations",
      maxTokens: 1000,
    })
    .withCachedPrompt()
    .onCompaction(
      createCompactFunction({
        summarize: summarizeWith(summaryModel),
        label: settings.summaryModel,
      }),
    )
    .compactAfter(Number(process.env.ARBOR_COMPACT_AFTER ?? 24_000));
  const agent = new SessionAgent({ session, model });
  let running = null;

  const turn = async (start) => {
    running = new AbortController();
    try {
      const result = await start({
        abortSignal: running.signal,
        onChunk: (chunk) => {
          if (chunk.type === "text-delta") process.stdout.write(chunk.delta);
          if (chunk.type === "tool-input-available")
            process.stdout.write(
              `\n[${chunk.toolName} ${JSON.stringify(chunk.input)}]\n`,
            );
        },
      });
      const { inputTokens, outputTokens } = result.usage;
      process.stdout.write(
        `\n(${result.status}, ${inputTokens} in / ${outputTokens} out tokens)\n`,
      );
    } catch (error) {
      console.error(
        `\n[error] ${error instanceof Error ? error.message : error}`,
      );
    } finally {
      running = null;
    }
  };

  const command = async (line) => {
    const [name, ...rest] = line.split(" ");
    const history = await session.getHistory();
    const lastUser = history.findLast((message) => message.role === "user");
    const text = (message) =>
      message.parts
        .filter((part) => part.type === "text")
        .map((part) => part.text)
        .join("");
    if (name === "/memory") {
      const memory = (await session.loadContext()).find(
        (block) => block.label === "memory",
      );
      console.log(memory?.content || "(empty)");
    } else if (name === "/history") {
      for (const message of history)
        console.log(`${message.role}: ${text(message)}`);
    } else if (name === "/regenerate") {
      await turn((options) => agent.regenerate(undefined, options));
    } else if (name === "/edit" && lastUser) {
      await turn((options) =>
        agent.editUserMessage(lastUser.id, rest.join(" "), options),
      );
    } else if (name === "/branches" && lastUser) {
      const answers = await session.getBranches(lastUser.id);
      answers.forEach((answer, index) =>
        console.log(`${index + 1}. ${text(answer)}`),
      );
    } else {
      console.log(
        "Commands: /memory /history /regenerate /edit <text> /branches /quit",
      );
    }
  };

  const oneShot = process.argv.slice(2).join(" ").trim();
  if (oneShot) {
    await turn((options) => agent.run(oneShot, options));
    db.close();
    return;
  }

  console.log(
    `Chatting with ${settings.model} at ${settings.baseURL}. /quit to leave.`,
  );
  const terminal = createInterface({
    input: process.stdin,
    output: process.stdout,
    prompt: "> ",
  });
  terminal.on("SIGINT", () => (running ? running.abort() : terminal.close()));
  terminal.prompt();
  for await (const input of terminal) {
    const line = input.trim();
    if (line === "/quit") break;
    if (line.startsWith("/")) await command(line);
    else if (line) await turn((options) => agent.run(line, options));
    terminal.prompt();
  }
  terminal.close();
  db.close();
}
