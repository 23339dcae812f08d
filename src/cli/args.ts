import { parseArgs } from "node:util";

/** One option of a command, as `node:util` parseArgs takes it, plus its help line. */
export interface OptionSpec {
  type: "string" | "boolean";
  short?: string;
  /** Shown in `--help`: `--port <n>` uses `value` as the placeholder. */
  description: string;
  value?: string;
}

/** What a command receives after parsing. */
export interface ParsedCommand {
  positionals: string[];
  values: Record<string, string | boolean | undefined>;
}

/** A command of the `arbor` bin: its help text, its options and what it does. */
export interface CommandSpec {
  /** `serve`, or `keys create` for a subcommand. */
  name: string;
  /** One line for the command list. */
  summary: string;
  /** The positional part of the usage line: `<session> [--leaf <id>]`. */
  usage: string;
  /** How many positionals it takes at least and at most. */
  positionals: { min: number; max: number };
  options: Record<string, OptionSpec>;
  /** Extra paragraphs shown under the usage in `--help`. */
  details?: string;
  run(command: ParsedCommand): Promise<void>;
}

/** A mistake in the command line itself: printed with a hint, exit code 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** The store options every command that reads or writes sessions takes. */
export const STORE_OPTIONS: Record<string, OptionSpec> = {
  db: {
    type: "string",
    value: "file",
    description: "SQLite database file (default: $ARBOR_DB or ./arbor.db)",
  },
  postgres: {
    type: "string",
    value: "url",
    description:
      "PostgreSQL connection URL instead of SQLite (or $DATABASE_URL)",
  },
};

/** `--json` for the commands whose output scripts read. */
export const JSON_OPTION: Record<string, OptionSpec> = {
  json: { type: "boolean", description: "print JSON instead of text" },
};

/**
 * Parses `argv` for one command. Unknown options, missing values and a wrong number of
 * positionals become a `UsageError` naming the command's `--help`.
 */
export function parseCommand(
  spec: CommandSpec,
  argv: string[],
): ParsedCommand & { help: boolean } {
  const options = {
    help: { type: "boolean" as const, short: "h" },
    ...Object.fromEntries(
      Object.entries(spec.options).map(([name, option]) => [
        name,
        option.short
          ? { type: option.type, short: option.short }
          : { type: option.type },
      ]),
    ),
  };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      options,
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(
      `${(error as Error).message.replace(/\. To specify a positional.*$/s, "")} (see arbor ${spec.name} --help)`,
    );
  }
  const values = parsed.values as ParsedCommand["values"];
  const help = values.help === true;
  const count = parsed.positionals.length;
  if (!help && (count < spec.positionals.min || count > spec.positionals.max)) {
    throw new UsageError(
      count < spec.positionals.min
        ? `arbor ${spec.name} needs ${spec.usage.split(" [")[0]} (see arbor ${spec.name} --help)`
        : `arbor ${spec.name}: unexpected argument "${parsed.positionals[spec.positionals.max]}" (see arbor ${spec.name} --help)`,
    );
  }
  return { positionals: parsed.positionals, values, help };
}

/** The `--help` text of one command. */
export function commandHelp(spec: CommandSpec): string {
  const rows = Object.entries(spec.options).map(([name, option]) => [
    `${option.short ? `-${option.short}, ` : "    "}--${name}${option.value ? ` <${option.value}>` : ""}`,
    option.description,
  ]);
  rows.push(["-h, --help", "show this help"]);
  const width = Math.max(...rows.map(([flag]) => flag!.length));
  const lines = [
    `Usage: arbor ${spec.name}${spec.usage ? ` ${spec.usage}` : ""}`,
    "",
    spec.summary,
  ];
  if (spec.details) lines.push("", spec.details);
  lines.push(
    "",
    "Options:",
    ...rows.map(([flag, text]) => `  ${flag!.padEnd(width)}  ${text}`),
  );
  return `${lines.join("\n")}\n`;
}

/** A string option, or `undefined`. */
export function stringOption(
  command: ParsedCommand,
  name: string,
): string | undefined {
  const value = command.values[name];
  return typeof value === "string" ? value : undefined;
}

/** A positive integer option (`--limit`, `--port` with `allowZero`), or `fallback`. */
export function integerOption(
  command: ParsedCommand,
  name: string,
  fallback: number,
  { allowZero = false }: { allowZero?: boolean } = {},
): number {
  const raw = stringOption(command, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || (!allowZero && value === 0)) {
    throw new UsageError(
      `--${name} takes a ${allowZero ? "non-negative" : "positive"} integer, got "${raw}"`,
    );
  }
  return value;
}
