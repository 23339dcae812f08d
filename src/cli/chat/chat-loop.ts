import { createInterface } from "node:readline";
import type { SessionAgent } from "../../agent/index.js";
import type { SessionInfo, SessionManager } from "../../session/index.js";
import { messageText, oneLine } from "../text.js";
import { runSlashCommand, type ChatContext } from "./slash-commands.js";

/** What the chat runs on: the store's manager, the session, its agent and the model's name. */
export interface ChatTarget {
  manager: SessionManager;
  info: SessionInfo;
  agent: SessionAgent;
  modelName: string;
}

/**
 * Reads lines from stdin until `/exit` or its end: a line is a turn, streamed to stdout as the
 * model answers; a line starting with `/` is a slash command. On a terminal Ctrl-C stops the
 * answer being streamed (what came so far is kept), and at the prompt it leaves. A failed turn
 * or command is reported on stderr and the chat goes on.
 */
export async function chatLoop({
  manager,
  info,
  agent,
  modelName,
}: ChatTarget): Promise<void> {
  const out = process.stdout;
  const interactive = process.stdin.isTTY === true;
  out.write(
    `Session ${info.id} "${info.name}" with ${modelName}. /help lists the commands.\n`,
  );
  const last = (await manager.getSession(info.id).getHistory()).at(-1);
  if (last) {
    out.write(
      `Continuing after ${last.role}: ${oneLine(messageText(last), 70)}\n`,
    );
  }

  const lines = createInterface({
    input: process.stdin,
    terminal: interactive,
  });
  let running: AbortController | null = null;
  lines.on("SIGINT", () => (running ? running.abort() : lines.close()));
  const context: ChatContext = {
    manager,
    sessionId: info.id,
    agent,
    print: (text) => void out.write(`${text}\n`),
    answer: async (turn) => {
      out.write("assistant> ");
      running = new AbortController();
      try {
        const result = (await turn({
          abortSignal: running.signal,
          onChunk: (chunk) => {
            if (chunk.type === "text-delta" && typeof chunk.delta === "string")
              out.write(chunk.delta);
            // Tool calls (the agent writing its memory, searching) show as a marker.
            else if (chunk.type === "tool-input-available")
              out.write(`[tool ${String(chunk.toolName)}] `);
          },
        })) as { status?: string };
        out.write(result.status === "aborted" ? " [stopped]\n" : "\n");
      } finally {
        running = null;
      }
    },
  };

  const prompt = () => interactive && out.write("you> ");
  prompt();
  for await (const raw of lines) {
    const line = raw.trim();
    if (line !== "") {
      try {
        if (line.startsWith("/")) {
          if ((await runSlashCommand(line, context)) === "exit") break;
        } else {
          await context.answer((turn) => agent.run(line, turn));
        }
      } catch (error) {
        process.stderr.write(`\nerror: ${(error as Error).message}\n`);
      }
    }
    prompt();
  }
  lines.close();
}
