/**
 * What `arbor <argv>` does, as a function: main.ts calls it with the process's arguments, and
 * tests call it in-process (no subprocess per case).
 *
 * @module
 */
import { ARBOR_ERROR_CODES, type ArborErrorCode } from "../session/index.js";
import { CLI_ERROR_CODES, type CliErrorCode } from "./errors.js";
import {
  commandHelp,
  parseCommand,
  UsageError,
  type CommandSpec,
} from "./args.js";
import { browseCommands } from "./commands/browse.js";
import { chatCommand } from "./commands/chat.js";
import { keyCommands } from "./commands/keys.js";
import { migrateCommand } from "./commands/migrate.js";
import { pruneCommand } from "./commands/prune.js";
import { searchIndexCommand } from "./commands/search-index.js";
import { serveCommand } from "./commands/serve.js";
import { mcpCommand } from "./commands/mcp.js";
import { sessionCommands } from "./commands/sessions.js";
import { transferCommands } from "./commands/transfer.js";

const COMMANDS: CommandSpec[] = [
  serveCommand,
  mcpCommand,
  ...keyCommands,
  ...sessionCommands,
  ...browseCommands,
  ...transferCommands,
  pruneCommand,
  searchIndexCommand,
  migrateCommand,
  chatCommand,
];
/** Commands with subcommands: `arbor keys create`. */
const GROUPS = new Map([
  ["keys", "Manage the API keys `arbor serve` checks."],
  ["sessions", "List, show, rename and delete sessions."],
]);

/** What to do next, for the errors a CLI user can fix from the shell. */
const HINTS = new Map([
  ["SCHEMA_MISSING", "Apply the schema first: arbor migrate --postgres <url>"],
  [
    "SCHEMA_VERSION",
    "This database was written by a newer Arbor: upgrade arbor-memory.",
  ],
]);

/** Exit codes: 0 done, 1 the command failed, 2 the command line was wrong. */
const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** Runs one `arbor` command line (without `node` and the script) and resolves to its exit code. */
export async function main(argv: string[]): Promise<number> {
  try {
    const [first, second] = argv;
    if (
      first === undefined ||
      first === "--help" ||
      first === "-h" ||
      first === "help"
    ) {
      process.stdout.write(overview());
      return first === undefined ? EXIT.usage : EXIT.ok;
    }
    if (first === "--version" || first === "-v") {
      process.stdout.write(`${await version()}\n`);
      return EXIT.ok;
    }
    const isGroup = GROUPS.has(first);
    if (
      isGroup &&
      (second === undefined || second === "--help" || second === "-h")
    ) {
      process.stdout.write(groupHelp(first));
      return second === undefined ? EXIT.usage : EXIT.ok;
    }
    const name = isGroup ? `${first} ${second}` : first;
    const spec = COMMANDS.find((command) => command.name === name);
    if (!spec) {
      throw new UsageError(
        isGroup
          ? `Unknown command "arbor ${name}" (see arbor ${first} --help)`
          : `Unknown command "${first}" (see arbor --help)`,
      );
    }
    const parsed = parseCommand(spec, argv.slice(isGroup ? 2 : 1));
    if (parsed.help) {
      process.stdout.write(commandHelp(spec));
      return EXIT.ok;
    }
    await spec.run(parsed);
    return EXIT.ok;
  } catch (error) {
    return report(error);
  }
}

function report(error: unknown): number {
  if (process.env.ARBOR_DEBUG) console.error(error);
  if (error instanceof UsageError) {
    if (!process.env.ARBOR_DEBUG) console.error(`arbor: ${error.message}`);
    return EXIT.usage;
  }
  if (!process.env.ARBOR_DEBUG) {
    const code = (error as { code?: unknown } | null)?.code;
    const message = error instanceof Error ? error.message : "";
    // A message that already names the command to run (a SQLite file's) needs no hint.
    const hint =
      typeof code === "string" && !message.includes("arbor migrate")
        ? HINTS.get(code)
        : undefined;
    console.error(`arbor: ${codedMessage(error)}${hint ? `\n${hint}` : ""}`);
  }
  return EXIT.failed;
}

/**
 * `<CODE>: <message>` for any error: Arbor's and the CLI's codes as they are, Node's system
 * errors (whose message already starts with their code) unchanged, anything else `INTERNAL`.
 */
function codedMessage(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (isKnownCode(code)) return `${code}: ${message}`;
  if (typeof code === "string" && /^[A-Z0-9_]+$/.test(code)) {
    return message.startsWith(`${code}:`) ? message : `${code}: ${message}`;
  }
  return `INTERNAL: ${message}`;
}

function isKnownCode(code: unknown): code is ArborErrorCode | CliErrorCode {
  return (
    (ARBOR_ERROR_CODES as readonly unknown[]).includes(code) ||
    (CLI_ERROR_CODES as readonly unknown[]).includes(code)
  );
}

function overview(): string {
  const rows: Array<[string, string]> = [];
  for (const spec of COMMANDS) {
    const group = spec.name.split(" ")[0]!;
    if (GROUPS.has(group)) {
      if (!rows.some(([name]) => name === group))
        rows.push([group, GROUPS.get(group)!]);
      continue;
    }
    rows.push([spec.name, spec.summary]);
  }
  return `Usage: arbor <command> [options]

Persistent, tree-structured conversation memory: serve it over HTTP, browse it, move it in and out.

Commands:
${formatRows(rows)}

Store: --db <file> (default $ARBOR_DB or ./arbor.db) or --postgres <url> (or $DATABASE_URL).
Run arbor <command> --help for the options of each command. ARBOR_DEBUG=1 shows stack traces.
`;
}

function groupHelp(group: string): string {
  const rows = COMMANDS.filter((spec) => spec.name.startsWith(`${group} `)).map(
    (spec): [string, string] => [
      `${spec.name} ${spec.usage}`.trim(),
      spec.summary,
    ],
  );
  return `Usage: arbor ${group} <command> [options]

${GROUPS.get(group)}

Commands:
${formatRows(rows)}

Run arbor ${group} <command> --help for the options.
`;
}

function formatRows(rows: Array<[string, string]>): string {
  const width = Math.max(...rows.map(([name]) => name.length));
  return rows
    .map(([name, text]) => `  ${name.padEnd(width)}  ${text}`)
    .join("\n");
}

async function version(): Promise<string> {
  const { readFile } = await import("node:fs/promises");
  const file = new URL("../../package.json", import.meta.url);
  return (JSON.parse(await readFile(file, "utf8")) as { version: string })
    .version;
}
