import type { PruneCutoff, PruneReceipt } from "../../session/index.js";
import {
  integerOption,
  JSON_OPTION,
  STORE_OPTIONS,
  stringOption,
  UsageError,
  type CommandSpec,
  type ParsedCommand,
} from "../args.js";
import { withExistingStore } from "../session-data.js";
import { printJson, table } from "../text.js";

/** Milliseconds per duration unit: `30d`, `12h`, `90m`, `45s`, `2w`. */
const UNITS: Record<string, number> = {
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
};

/** The receipt's counts, in the order and with the words the text output uses. */
/** The receipt's counts: the fields that hold a number. */
type CountKey = {
  [K in keyof PruneReceipt]: PruneReceipt[K] extends number ? K : never;
}[keyof PruneReceipt];

const KINDS: Array<[CountKey, string]> = [
  ["sessions", "sessions"],
  ["messages", "messages"],
  ["overlays", "overlays"],
  ["indexRows", "search index rows"],
  ["blockVersions", "block versions"],
  ["attachments", "attachments"],
  ["auditEvents", "audit events"],
  ["configRows", "config rows"],
  ["contextRows", "context rows"],
  ["changeLogRows", "change-log rows"],
  ["vectors", "embedding vectors"],
  ["queuedEmbeddings", "queued embeddings"],
];

/** `arbor prune`: retention by age, count and abandoned branches (manager.prune()). */
export const pruneCommand: CommandSpec = {
  name: "prune",
  summary:
    "Delete old sessions and abandoned branches, keeping every active path whole.",
  usage:
    "[--older-than <age|date>] [--keep-latest <n>] [--abandoned-branches-older-than <age|date>]",
  positionals: { min: 0, max: 0 },
  details:
    "An age is a number and a unit: 45s, 90m, 12h, 30d, 2w; a date is ISO 8601 (2026-06-01 or\n2026-06-01T12:00:00Z). Sessions go when they were last active before --older-than and are not\namong the newest --keep-latest (alone, --keep-latest removes all others). Last active is the\nlater of the last update and when the session entered this store: an imported conversation\nkeeps its own dates, but counts as new on the day of its import. The receipt lists each session\nwith that date. Branches off the active path go when all their messages are older than\n--abandoned-branches-older-than. Everything derived from what goes (search rows, overlays, block history, attachments) goes too.",
  options: {
    "older-than": {
      type: "string",
      value: "age|date",
      description: "sessions last active (updated or imported) before this",
    },
    "keep-latest": {
      type: "string",
      value: "n",
      description: "always keep the newest n sessions",
    },
    "abandoned-branches-older-than": {
      type: "string",
      value: "age|date",
      description: "branches off the active path older than this",
    },
    owner: {
      type: "string",
      value: "id",
      description: "only this owner's sessions",
    },
    "dry-run": {
      type: "boolean",
      description: "only count what would go; change nothing",
    },
    ...JSON_OPTION,
    ...STORE_OPTIONS,
  },
  run: async (command) => {
    const options = pruneOptions(command);
    await withExistingStore(command, async ({ manager }) => {
      const receipt = await manager.prune(options);
      if (command.values.json) return printJson(receipt);
      console.log(describeReceipt(receipt));
    });
  },
};

/**
 * Parses an age (`30d`) into milliseconds before now, or an ISO 8601 date into a `Date`.
 * Anything else is a `UsageError` naming the option.
 */
export function parseCutoff(raw: string, option: string): PruneCutoff {
  const age = /^(\d+(?:\.\d+)?)\s*([smhdw])$/.exec(raw.trim());
  if (age) return Number(age[1]) * UNITS[age[2]!]!;
  if (/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(raw)) {
    const date = new Date(raw);
    if (!Number.isNaN(date.getTime())) return date;
  }
  throw new UsageError(
    `--${option} takes an age like 30d, 12h, 90m or an ISO date like 2026-06-01, got "${raw}"`,
  );
}

/** The receipt as a few readable lines: what went (or would go), kind by kind. */
export function describeReceipt(receipt: PruneReceipt): string {
  const verb = receipt.dryRun ? "Would remove" : "Removed";
  const nothing = KINDS.every(([key]) => receipt[key] === 0);
  const lines = [
    nothing
      ? receipt.dryRun
        ? "Nothing to prune (dry run)."
        : "Nothing to prune."
      : `${verb} ${plural(receipt.sessionIds.length, "session")} and ${plural(receipt.branches, "abandoned branch", "abandoned branches")}${receipt.dryRun ? " (dry run: nothing was changed)" : ""}.`,
  ];
  if (!nothing) {
    lines.push(
      "",
      table(
        ["KIND", "COUNT"],
        KINDS.filter(([key]) => receipt[key] !== 0).map(([key, label]) => [
          label,
          String(receipt[key]),
        ]),
      ),
    );
  }
  if (receipt.prunedSessions.length > 0) {
    // Each with the date its age counted from, so a dry run shows why it would go.
    lines.push(
      "",
      table(
        ["SESSION", "LAST ACTIVE", "NAME"],
        receipt.prunedSessions.map((session) => [
          session.id,
          session.activeAt.slice(0, 19).replace("T", " "),
          session.name,
        ]),
      ),
    );
  }
  if (receipt.notCovered.length > 0)
    lines.push(
      "",
      `Not covered (still holds data about what went): ${receipt.notCovered.join(", ")}`,
    );
  lines.push("", `At ${receipt.prunedAt}`);
  return lines.join("\n");
}

// --- Internal helpers ---

function pruneOptions(command: ParsedCommand) {
  const olderThan = stringOption(command, "older-than");
  const branches = stringOption(command, "abandoned-branches-older-than");
  const owner = stringOption(command, "owner");
  const hasKeep = stringOption(command, "keep-latest") !== undefined;
  if (olderThan === undefined && branches === undefined && !hasKeep) {
    throw new UsageError(
      "arbor prune needs --older-than, --keep-latest or --abandoned-branches-older-than (see arbor prune --help)",
    );
  }
  return {
    ...(olderThan !== undefined
      ? { olderThan: parseCutoff(olderThan, "older-than") }
      : {}),
    ...(hasKeep
      ? {
          keepLatest: integerOption(command, "keep-latest", 0, {
            allowZero: true,
          }),
        }
      : {}),
    ...(branches !== undefined
      ? {
          abandonedBranchesOlderThan: parseCutoff(
            branches,
            "abandoned-branches-older-than",
          ),
        }
      : {}),
    ...(owner !== undefined ? { ownerId: owner } : {}),
    dryRun: command.values["dry-run"] === true,
  };
}

function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}
