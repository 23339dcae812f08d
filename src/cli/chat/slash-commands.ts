import type { SessionAgent, TurnOptions } from "../../agent/index.js";
import { ArborError, type SessionManager } from "../../session/index.js";
import { oneLine, messageText } from "../text.js";
import { renderTree } from "../tree-view.js";
import { readTree } from "../session-data.js";
import { MEMORY_BLOCK } from "../store.js";

/** What a slash command works on. */
export interface ChatContext {
  manager: SessionManager;
  sessionId: string;
  agent: SessionAgent;
  /** Streams one answer: `turn` gets the options to pass to the agent (chunks, abort signal). */
  answer(turn: (options: TurnOptions) => Promise<unknown>): Promise<void>;
  print(text: string): void;
}

/** The slash commands and their help lines, in the order `/help` lists them. */
export const SLASH_HELP: ReadonlyArray<[string, string]> = [
  ["/regenerate", "answer the last user message again (a sibling branch)"],
  [
    "/edit <text>",
    "replace the last user message (a sibling branch) and answer it",
  ],
  ["/branches", "draw the session's tree; ● marks the active path"],
  ["/switch <id>", "continue from another message (see /branches for ids)"],
  ["/compact", "summarize the older part of the active branch (needs a model)"],
  ["/memory", "show the memory block the agent keeps"],
  ["/search <query>", "search every session"],
  ["/help", "this list"],
  ["/exit", "leave (Ctrl-D works too)"],
];

/**
 * Runs one slash command. Returns `"exit"` for `/exit`; an unknown command prints the list.
 */
export async function runSlashCommand(
  line: string,
  context: ChatContext,
): Promise<"exit" | void> {
  const [name = "", ...rest] = line.trim().split(/\s+/);
  const argument = line.trim().slice(name.length).trim();
  const session = context.manager.getSession(context.sessionId);
  switch (name) {
    case "/exit":
    case "/quit":
      return "exit";
    case "/help":
      return context.print(helpText());
    case "/regenerate":
      return context.answer((turn) =>
        context.agent.regenerate(undefined, turn),
      );
    case "/edit": {
      if (!argument) return context.print("Usage: /edit <text>");
      const history = await session.getHistory();
      const last = history.findLast((message) => message.role === "user");
      if (!last) return context.print("There is no user message to edit yet.");
      return context.answer((turn) =>
        context.agent.editUserMessage(last.id, argument, turn),
      );
    }
    case "/branches": {
      const tree = await readTree(context.manager, context.sessionId);
      return context.print(
        tree.nodes.length === 0
          ? "(no messages yet)"
          : renderTree(tree.nodes, {
              activeLeafId: tree.activeLeafId,
              compactions: tree.compactions,
              width: 60,
            }),
      );
    }
    case "/switch": {
      if (rest.length !== 1)
        return context.print("Usage: /switch <message id>");
      await context.agent.switchBranch(rest[0]!);
      const leaf = await session.getMessage(rest[0]!);
      return context.print(
        `Switched to ${rest[0]} (${leaf?.role}: ${oneLine(leaf ? messageText(leaf) : "", 60)}).`,
      );
    }
    case "/compact": {
      try {
        const result = await session.compact();
        return context.print(
          result
            ? `Summarized ${result.fromMessageId} … ${result.toMessageId}: ${oneLine(result.summary, 200)}`
            : "Nothing to compact yet.",
        );
      } catch (error) {
        if ((error as ArborError).code === "COMPACTION_NOT_CONFIGURED") {
          return context.print(
            "Compaction needs a model: set ARBOR_BASE_URL and ARBOR_MODEL.",
          );
        }
        throw error;
      }
    }
    case "/memory": {
      await session.loadContext();
      const block = session.getContextBlock(MEMORY_BLOCK.label);
      return context.print(
        block?.content ? block.content : "(the memory block is empty)",
      );
    }
    case "/search": {
      if (!argument) return context.print("Usage: /search <query>");
      const results = await context.manager.search(argument, { limit: 10 });
      return context.print(
        results.length === 0
          ? "No results."
          : results
              .map(
                (hit) =>
                  `${hit.sessionId ?? ""} ${hit.id} [${hit.role}] ${oneLine(hit.content, 80)}`,
              )
              .join("\n"),
      );
    }
    default:
      return context.print(`Unknown command ${name}.\n${helpText()}`);
  }
}

// --- Internal helpers ---

function helpText(): string {
  const width = Math.max(...SLASH_HELP.map(([name]) => name.length));
  return SLASH_HELP.map(
    ([name, text]) => `  ${name.padEnd(width)}  ${text}`,
  ).join("\n");
}
