import {
  JSON_OPTION,
  STORE_OPTIONS,
  stringOption,
  UsageError,
  type CommandSpec,
} from "../args.js";
import { withExistingStore, withReadStore } from "../session-data.js";
import { printJson } from "../text.js";

/** `arbor search-index`: shows or sets what the store's text index holds (tool outputs). */
export const searchIndexCommand: CommandSpec = {
  name: "search-index",
  summary: "Show or set whether tool outputs are searchable in this store.",
  usage: "[--tool-outputs on|off]",
  positionals: { min: 0, max: 0 },
  details:
    "Without --tool-outputs it prints the store's settings. A change applies to the whole store and\nevery process over it, and re-indexes the messages that may hold a tool call at once (on\nPostgreSQL writes wait for it). Indexing outputs about doubles a coding agent's index.",
  options: {
    "tool-outputs": {
      type: "string",
      value: "on|off",
      description: "index each tool call's output (first 4 KB) or not",
    },
    ...JSON_OPTION,
    ...STORE_OPTIONS,
  },
  run: async (command) => {
    const raw = stringOption(command, "tool-outputs");
    if (raw !== undefined && raw !== "on" && raw !== "off")
      throw new UsageError(`--tool-outputs takes on or off, got "${raw}"`);
    if (raw === undefined) {
      // Showing the settings only reads: the store is opened read-only.
      return withReadStore(command, async ({ manager }) => {
        const settings = await manager.searchIndexSettings();
        if (command.values.json) return printJson(settings);
        console.log(`Tool outputs: ${settings.toolOutputs ? "on" : "off"}`);
      });
    }
    await withExistingStore(command, async ({ manager }) => {
      const change = await manager.configureSearchIndex({
        toolOutputs: raw === "on",
      });
      if (command.values.json) return printJson(change);
      console.log(
        change.changed
          ? `Tool outputs: ${raw} (re-indexed ${change.reindexed} ${change.reindexed === 1 ? "message" : "messages"}).`
          : `Tool outputs: already ${raw}.`,
      );
    });
  },
};
