import {
  ArborError,
  isCompactionMessage,
  searchableTerms,
} from "../../session/index.js";
import {
  integerOption,
  JSON_OPTION,
  STORE_OPTIONS,
  stringOption,
  type CommandSpec,
} from "../args.js";
import {
  readTree,
  requireSession,
  withReadStore,
  withSearchStore,
} from "../session-data.js";
import { oneLine, printJson, table, transcriptText } from "../text.js";
import { renderTree } from "../tree-view.js";

const tree: CommandSpec = {
  name: "tree",
  summary: "Draw a session's branches; ● marks the active path, ○ the others.",
  usage: "<session>",
  positionals: { min: 1, max: 1 },
  details:
    "Each summary overlay is shown under the message it ends at, with the range it covers.",
  options: {
    width: {
      type: "string",
      value: "n",
      description: "characters of text per message (default 72)",
    },
    ...JSON_OPTION,
    ...STORE_OPTIONS,
  },
  run: (command) => {
    // Options are checked before the store opens: a typo is a usage error, whatever the store.
    const width = integerOption(command, "width", 72);
    return withReadStore(command, async ({ manager }) => {
      const data = await readTree(manager, command.positionals[0]!);
      if (command.values.json) return printJson(data);
      if (data.nodes.length === 0) return console.log("(no messages)");
      console.log(
        renderTree(data.nodes, {
          activeLeafId: data.activeLeafId,
          compactions: data.compactions,
          width,
        }),
      );
    });
  },
};

const history: CommandSpec = {
  name: "history",
  summary:
    "Print the history of a branch (the active one unless --leaf), overlays applied.",
  usage: "<session> [--leaf <id>] [--full]",
  positionals: { min: 1, max: 1 },
  details:
    "Tool calls show their input and output cut to 200 characters; injected context (an AGENTS.md,\nthe environment, a slash command's wrapper) is folded to one line. --full shows both whole.",
  options: {
    leaf: {
      type: "string",
      value: "id",
      description: "the message the branch ends at",
    },
    full: {
      type: "boolean",
      description:
        "show injected context, and tool calls' input and output, whole",
    },
    ...JSON_OPTION,
    ...STORE_OPTIONS,
  },
  run: (command) =>
    withReadStore(command, async ({ manager }) => {
      const id = command.positionals[0]!;
      await requireSession(manager, id);
      const session = manager.getSession(id);
      const leafId = stringOption(command, "leaf");
      if (leafId !== undefined && !(await session.getMessage(leafId))) {
        throw new ArborError(
          "MESSAGE_NOT_FOUND",
          `No message "${leafId}" in session ${id} (arbor tree ${id} shows the ids)`,
        );
      }
      const messages = await session.getHistory(leafId);
      if (command.values.json) {
        return printJson({
          leafId: leafId ?? messages.at(-1)?.id ?? null,
          messages,
        });
      }
      if (messages.length === 0) return console.log("(no messages)");
      console.log(
        messages
          .map((message) => {
            const kind = isCompactionMessage(message)
              ? "summary"
              : message.role;
            return `── ${kind} · ${message.id}\n${transcriptText(message, command.values.full === true)}`;
          })
          .join("\n\n"),
      );
    }),
};

const search: CommandSpec = {
  name: "search",
  summary: "Full-text search over every session, or one with --session.",
  usage: "<query> [--session <id>] [--limit <n>] [--prefix]",
  positionals: { min: 1, max: 1 },
  options: {
    session: {
      type: "string",
      value: "id",
      description: "search this session only",
    },
    limit: {
      type: "string",
      value: "n",
      description: "at most n results (default 20)",
    },
    prefix: {
      type: "boolean",
      description:
        'the last word matches as a word prefix ("budg" finds "budget")',
    },
    ...JSON_OPTION,
    ...STORE_OPTIONS,
  },
  run: (command) => {
    // Checked before the store opens, as in tree.
    const limit = integerOption(command, "limit", 20);
    return withSearchStore(command, async ({ manager }) => {
      const sessionId = stringOption(command, "session");
      if (sessionId) await requireSession(manager, sessionId);
      const results = await manager.search(command.positionals[0]!, {
        limit,
        ...(sessionId ? { sessionIds: [sessionId] } : {}),
        ...(command.values.prefix === true ? { prefix: "last" as const } : {}),
      });
      if (command.values.json) return printJson({ results });
      if (results.length === 0)
        return console.log(
          searchableTerms(command.positionals[0]).length === 0
            ? `Nothing to search for in ${JSON.stringify(command.positionals[0])}: a search matches words (letters or digits), and the query has none.`
            : "No results.",
        );
      console.log(
        table(
          ["SESSION", "MESSAGE", "ROLE", "TEXT"],
          results.map((result) => [
            result.sessionId ?? sessionId ?? "",
            result.id,
            result.role,
            oneLine(result.content, 80),
          ]),
        ),
      );
    });
  },
};

/** `arbor tree`, `arbor history`, `arbor search`. */
export const browseCommands: CommandSpec[] = [tree, history, search];
