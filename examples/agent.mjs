// A terminal chat agent with persistent, tree-structured memory in ./arbor.db. It talks to any
// OpenAI-compatible endpoint (Ollama, llama.cpp's server, vLLM, OpenAI, …) configured by
// environment variables; see README "Run the example agent". `--help` explains them.
//
//   npm run build
//   ARBOR_BASE_URL=http://localhost:11434/v1 ARBOR_MODEL=llama3.2 node examples/agent.mjs
//   ... node examples/agent.mjs "Remember that I drink green tea."   (one turn, then exit)
//
// Commands: /memory  /history  /regenerate  /edit <text>  /branches  /switch <n or id>  /quit.
// Ctrl+C stops an answer. Exit status: 0 on success, 1 when a turn failed, 2 for a configuration
// mistake (no endpoint, half of one, a missing package).
import { createInterface } from "node:readline";
import {
  MODEL_ENV,
  modelFromEnv,
  SessionAgent,
  summarizeWith,
} from "arbor-memory/agent";
import {
  isArborError,
  isCompactionMessage,
  Session,
} from "arbor-memory/session";
import { openSqlite } from "arbor-memory/sqlite";
import { createCompactFunction } from "arbor-memory/utils";

const SOUL =
  "You are a helpful assistant with a long-term memory. When the user tells you something worth " +
  'remembering about them, save it with the set_context tool (block "memory"), then answer briefly.';
const COMMANDS =
  "Commands: /memory /history /regenerate /edit <text> /branches /switch <n or id> /quit";
/** Exit status of a configuration mistake, as opposed to a failed turn (1). */
const EXIT_CONFIGURATION = 2;
const CONFIGURATION_CODES = new Set(["INVALID_ARGUMENT", "MISSING_DEPENDENCY"]);

const args = process.argv.slice(2);
if (args[0] === "--help" || args[0] === "-h") {
  console.log(help());
} else {
  try {
    const models = await modelFromEnv();
    if (!models) {
      console.error(
        `[arbor] No model endpoint configured: set ${MODEL_ENV.baseURL} (e.g. http://localhost:11434/v1) and ${MODEL_ENV.model} (e.g. llama3.2); --help lists the options.`,
      );
      process.exitCode = EXIT_CONFIGURATION;
    } else {
      await chat(models, args.join(" ").trim());
    }
  } catch (error) {
    // A configuration mistake is the user's to fix: one line, no stack trace.
    console.error(messageOf(error));
    process.exitCode =
      isArborError(error) && CONFIGURATION_CODES.has(error.code)
        ? EXIT_CONFIGURATION
        : 1;
  }
}

async function chat({ model, summaryModel, settings }, oneShot) {
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
    const waiting = thinkingIndicator();
    try {
      const result = await start({
        abortSignal: running.signal,
        onChunk: (chunk) => {
          if (chunk.type === "text-delta") {
            waiting.stop();
            process.stdout.write(chunk.delta);
          }
          if (chunk.type === "tool-input-available") {
            waiting.stop();
            process.stdout.write(
              `\n[${chunk.toolName} ${JSON.stringify(chunk.input)}]\n`,
            );
          }
        },
      });
      waiting.stop();
      const { inputTokens, outputTokens } = result.usage;
      process.stdout.write(
        `\n(${result.status}, ${inputTokens} in / ${outputTokens} out tokens)\n`,
      );
    } catch (error) {
      waiting.stop();
      console.error(`\n[error] ${messageOf(error)}`);
      process.exitCode = 1;
    } finally {
      running = null;
    }
  };

  const command = async (line) => {
    const [name, ...rest] = line.split(/\s+/);
    const argument = rest.join(" ").trim();
    const history = await session.getHistory();
    const lastUser = history.findLast((message) => message.role === "user");
    if (name === "/memory") {
      const memory = (await session.loadContext()).find(
        (block) => block.label === "memory",
      );
      console.log(memory?.content || "(empty)");
    } else if (name === "/history") {
      for (const message of history)
        console.log(`${message.role}: ${describe(message)}`);
    } else if (name === "/regenerate") {
      await turn((options) => agent.regenerate(undefined, options));
    } else if (name === "/edit") {
      if (!lastUser) console.log("Nothing to edit yet.");
      else if (!argument)
        console.log("Usage: /edit <the new text of your last message>");
      else
        await turn((options) =>
          agent.editUserMessage(lastUser.id, argument, options),
        );
    } else if (name === "/branches") {
      if (!lastUser) console.log("No branches yet.");
      else printBranches(await branchChoices(session, lastUser), history);
    } else if (name === "/switch") {
      await switchTo(argument, lastUser);
    } else {
      console.log(COMMANDS);
    }
  };

  /** Switches to a choice of `/branches` (by number) or to any message id, then to its newest leaf. */
  const switchTo = async (argument, lastUser) => {
    const choices = lastUser ? await branchChoices(session, lastUser) : [];
    const byNumber = /^\d+$/.test(argument)
      ? choices[Number(argument) - 1]?.message
      : undefined;
    const target =
      byNumber ?? (argument ? await session.getMessage(argument) : null);
    if (!target) {
      console.log(
        "Usage: /switch <n or id>, with n a number from /branches or a message id",
      );
      return;
    }
    const leaf = await newestLeafUnder(session, target);
    await agent.switchBranch(leaf.id);
    console.log(`Switched to: ${describe(leaf)}`);
  };

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

// --- Branches ---

/**
 * What `/branches` lists: the versions of the last user message (the original and its edits,
 * siblings under one parent), then the answers to it (regenerations, siblings under it).
 */
async function branchChoices(session, lastUser) {
  const versions = (await siblingsOf(session, lastUser)).filter(
    (message) => message.role === "user",
  );
  const answers = await session.getBranches(lastUser.id);
  return [
    ...versions.map((message) => ({ kind: "question", message })),
    ...answers.map((message) => ({ kind: "answer", message })),
  ];
}

async function siblingsOf(session, message) {
  const path = await session.getHistory(message.id);
  const parent = path.at(-2);
  if (parent && !isCompactionMessage(parent))
    return session.getBranches(parent.id);
  // A root (a first question and its edits) or a parent behind a summary: the parent links are in
  // the snapshot.
  const { messages } = await session.exportSnapshot();
  const parentId =
    messages.find((entry) => entry.message.id === message.id)?.parentId ?? null;
  return messages
    .filter((entry) => entry.parentId === parentId)
    .map((entry) => entry.message);
}

function printBranches(choices, history) {
  const active = new Set(history.map((message) => message.id));
  let heading = "";
  choices.forEach(({ kind, message }, index) => {
    if (kind !== heading) {
      heading = kind;
      console.log(
        kind === "question" ? "Your last message:" : "Answers to it:",
      );
    }
    const mark = active.has(message.id) ? "*" : " ";
    console.log(
      `${mark} ${index + 1}. ${preview(describe(message, { brief: true }))}  (${message.id})`,
    );
  });
  console.log("* = active. /switch <n or id> continues another branch.");
}

/** The newest leaf under `message`, following the newest child at each step. */
async function newestLeafUnder(session, message) {
  let leaf = message;
  for (;;) {
    const children = await session.getBranches(leaf.id);
    if (children.length === 0) return leaf;
    leaf = children.at(-1);
  }
}

// --- Output ---

/** Text parts, and tool calls as `[name input → output]` (`[name]` when brief). */
function describe(message, { brief = false } = {}) {
  return message.parts
    .map((part) => {
      if (part.type === "text") return part.text;
      if (part.type === "dynamic-tool" || part.type.startsWith("tool-")) {
        const name = part.toolName ?? part.type.slice("tool-".length);
        if (brief) return `[${name}]`;
        const output =
          part.state === "output-error"
            ? ` → error: ${part.errorText}`
            : part.output !== undefined
              ? ` → ${preview(JSON.stringify(part.output))}`
              : "";
        return `[${name} ${preview(JSON.stringify(part.input ?? {}))}${output}]`;
      }
      return "";
    })
    .filter(Boolean)
    .join(" ");
}

function preview(text, length = 120) {
  const line = String(text).replace(/\s+/g, " ");
  return line.length > length ? `${line.slice(0, length - 1)}…` : line;
}

/**
 * "…thinking" while the model has not answered yet, with the seconds waited, on a terminal only
 * (a piped stdout gets no control characters). `stop()` clears it; later calls do nothing.
 */
function thinkingIndicator() {
  if (!process.stdout.isTTY) return { stop() {} };
  const started = Date.now();
  const show = () => {
    const seconds = Math.floor((Date.now() - started) / 1000);
    process.stdout.write(
      `\r\x1b[K…thinking${seconds > 0 ? ` ${seconds}s` : ""}`,
    );
  };
  show();
  const timer = setInterval(show, 1000);
  let stopped = false;
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      process.stdout.write("\r\x1b[K");
    },
  };
}

function messageOf(error) {
  return error instanceof Error ? error.message : String(error);
}

function help() {
  const line = (name, text) => `  ${name.padEnd(20)} ${text}`;
  return [
    "A chat agent with tree-structured memory. Point it at any OpenAI-compatible server:",
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
    line("ARBOR_DB", "optional: the SQLite file, default ./arbor.db"),
    line("ARBOR_SESSION", "optional: the session id, default example-agent"),
    line(
      "ARBOR_COMPACT_AFTER",
      "optional: compact above this many tokens, default 24000",
    ),
    "",
    `Then: npm run build && ${MODEL_ENV.baseURL}=... ${MODEL_ENV.model}=... node examples/agent.mjs [one message]`,
    COMMANDS,
  ].join("\n");
}
