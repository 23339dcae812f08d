import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import {
  IMPORT_FORMATS,
  type ImportFormat,
  type ImportWarning,
  type SkippedContent,
} from "../../formats/types.js";
import type {
  ExistingConversation,
  ImportReport,
} from "../../formats/import.js";
import { ArborError, type SessionManager } from "../../session/index.js";
import {
  STORE_OPTIONS,
  stringOption,
  UsageError,
  type CommandSpec,
} from "../args.js";
import { CliError } from "../errors.js";
import { createProgress } from "../progress.js";
import {
  checkStreamed,
  importStreamed,
  streamedKind,
} from "./import-stream.js";
import { requireSession, withReadStore, withStore } from "../session-data.js";

const EXPORT_FORMATS = ["jsonl", "snapshot", "markdown"] as const;
type ExportFormat = (typeof EXPORT_FORMATS)[number];
const EXTENSIONS: Record<ExportFormat, string> = {
  jsonl: ".arbor.jsonl",
  snapshot: ".snapshot.json",
  markdown: ".md",
};
const IMPORT_CHOICES: readonly string[] = ["auto", ...IMPORT_FORMATS];
const EXISTING_CHOICES: readonly string[] = ["skip", "replace", "update"];

const exportCommand: CommandSpec = {
  name: "export",
  summary:
    "Write a session (or every session) as tree JSONL, a snapshot or Markdown.",
  usage:
    "<session> [--format jsonl|snapshot|markdown] [--out <file>] [--leaf <id>] [--full-tool-output]\n       arbor export --all --out <dir> [--format …]",
  positionals: { min: 0, max: 1 },
  details:
    "jsonl and snapshot keep every branch, overlay and block (arbor import reads both back);\nmarkdown is one branch as a transcript. Without --out the file goes to stdout.",
  options: {
    format: {
      type: "string",
      value: "format",
      description: "jsonl (default), snapshot or markdown",
    },
    out: {
      type: "string",
      value: "path",
      description: "the file (a folder with --all)",
    },
    leaf: {
      type: "string",
      value: "id",
      description: "the branch: its leaf message (jsonl, markdown)",
    },
    "full-tool-output": {
      type: "boolean",
      description:
        "markdown: write whole tool inputs and outputs (default: one line each, folded)",
    },
    all: {
      type: "boolean",
      description: "export every session into --out <dir>",
    },
    ...STORE_OPTIONS,
  },
  run: (command) => {
    const format = (stringOption(command, "format") ?? "jsonl") as ExportFormat;
    if (!EXPORT_FORMATS.includes(format)) {
      throw new UsageError(
        `--format takes ${EXPORT_FORMATS.join(", ")}; got "${format}"`,
      );
    }
    const out = stringOption(command, "out");
    const leaf = stringOption(command, "leaf");
    const all = command.values.all === true;
    const toolOutput =
      command.values["full-tool-output"] === true ? "full" : "fold";
    if (all === (command.positionals.length === 1)) {
      throw new UsageError(
        "arbor export takes a session id or --all (see arbor export --help)",
      );
    }
    if (all && !out)
      throw new UsageError("arbor export --all needs --out <dir>");
    if (leaf !== undefined && (all || format === "snapshot")) {
      throw new UsageError(
        "--leaf picks one branch: it takes one session, as jsonl or markdown",
      );
    }
    // Checked before the store opens: a wrong --out costs nothing.
    if (out !== undefined) checkOutput(out, all ? "folder" : "file");
    return withReadStore(command, async ({ manager }) => {
      if (!all) {
        const text = await exportText(
          manager,
          command.positionals[0]!,
          format,
          leaf,
          toolOutput,
        );
        if (out) {
          writeOutput(out, text);
          console.error(`Wrote ${out}`);
        } else process.stdout.write(text);
        return;
      }
      try {
        mkdirSync(out!, { recursive: true });
      } catch (error) {
        throw outputError(out!, error);
      }
      const sessions = await manager.list();
      const progress = createProgress("exporting");
      for (const [index, info] of sessions.entries()) {
        writeOutput(
          join(out!, `${info.id}${EXTENSIONS[format]}`),
          await exportText(manager, info.id, format, undefined, toolOutput),
        );
        progress.update(index + 1, sessions.length);
      }
      progress.finish(`Exported ${sessions.length} session(s) to ${out}`);
    });
  },
};

const importCommand: CommandSpec = {
  name: "import",
  summary: "Import conversations from a file, all or nothing.",
  usage:
    "<file> [--format auto|…] [--name <name>] [--owner <id>] [--existing skip|replace|update] [--restore-erased] [--lenient]",
  positionals: { min: 1, max: 1 },
  details: `Formats: ${IMPORT_CHOICES.join(", ")}.
The whole file is checked before anything is written; an error names the line or node
and leaves the database unchanged.`,
  options: {
    format: {
      type: "string",
      value: "format",
      description: "the file's format (default auto: detected)",
    },
    name: {
      type: "string",
      value: "name",
      description: "the session name (default: the conversation's title)",
    },
    owner: {
      type: "string",
      value: "id",
      description: "the owner of the imported sessions",
    },
    existing: {
      type: "string",
      value: "mode",
      description:
        "a conversation imported before: update (default: add the messages it lacks, by message id), skip, or replace",
    },
    "restore-erased": {
      type: "boolean",
      description: "import conversations whose earlier session was erased",
    },
    lenient: {
      type: "boolean",
      description:
        "import a trimmed file: entries whose parent is missing go under the root, with a warning",
    },
    ...STORE_OPTIONS,
  },
  run: async (command) => {
    const file = command.positionals[0]!;
    const format = stringOption(command, "format") ?? "auto";
    if (!IMPORT_CHOICES.includes(format)) {
      throw new UsageError(
        `--format takes ${IMPORT_CHOICES.join(", ")}; got "${format}"`,
      );
    }
    const existing = stringOption(command, "existing") ?? "update";
    if (!EXISTING_CHOICES.includes(existing)) {
      throw new UsageError(
        `--existing takes ${EXISTING_CHOICES.join(", ")}; got "${existing}"`,
      );
    }
    const name = stringOption(command, "name");
    const owner = stringOption(command, "owner");
    const lenient = command.values.lenient === true;
    const importOptions = {
      ...(owner ? { ownerId: owner } : {}),
      existing: existing as ExistingConversation,
      restoreErased: command.values["restore-erased"] === true,
    };
    const kind = await readable(file, () => streamedKind(file, format));
    if (kind !== null) {
      // A ChatGPT export (or its zip) is streamed, and checked whole before the store opens.
      const streamed = { lenient, fileName: basename(file) };
      const check = await checkStreamed(file, kind, streamed);
      return withStore(command, async ({ manager }) => {
        const progress = createProgress("importing");
        const report = await importStreamed(manager, file, kind, check, {
          ...importOptions,
          ...streamed,
          ...(name !== undefined ? { name } : {}),
          onProgress: (done, total) => progress.update(done, total),
        });
        printReport(progress, report, "chatgpt");
        printSkipped(check.skippedContent.items, check.skippedContent.count);
        printWarnings(check.warnings.items, check.warnings.count);
      });
    }
    const text = await readable(file, async () => readFileSync(file, "utf8"));
    const { importConversationsWithReport, parseConversations } =
      await formats();
    // Parse before opening the store: a bad file never creates a database.
    const conversations = parseConversations(text, {
      format: format as ImportFormat | "auto",
      fileName: basename(file),
      lenient,
    });
    if (name !== undefined) {
      for (const conversation of conversations) {
        conversation.title =
          conversations.length === 1 ? name : `${name}: ${conversation.title}`;
      }
    }
    return withStore(command, async ({ manager }) => {
      const progress = createProgress("importing");
      const report = await importConversationsWithReport(
        manager,
        conversations,
        {
          ...importOptions,
          onProgress: (done, total) => progress.update(done, total),
        },
      );
      printReport(progress, report, conversations[0]?.format ?? format);
      const skipped = conversations.flatMap(
        (conversation) => conversation.skipped ?? [],
      );
      printSkipped(skipped, skipped.length);
      const warnings = conversations.flatMap(
        (conversation) => conversation.warnings ?? [],
      );
      printWarnings(warnings, warnings.length);
    });
  },
};

/** `arbor export`, `arbor import`. */
export const transferCommands: CommandSpec[] = [exportCommand, importCommand];

// --- Internal helpers ---

/** `--out` names a folder where a file goes, or a file where `--all` wants a folder. */
function checkOutput(out: string, wanted: "file" | "folder"): void {
  let isFolder: boolean;
  try {
    isFolder = statSync(out).isDirectory();
  } catch {
    // Nothing there yet: created when written; a missing parent is reported then.
    return;
  }
  if (wanted === "file" && isFolder) {
    throw new CliError(
      "OUTPUT_UNAVAILABLE",
      `--out ${out} is a folder: name a file, or use --all to write one file per session into it`,
    );
  }
  if (wanted === "folder" && !isFolder) {
    throw new CliError(
      "OUTPUT_UNAVAILABLE",
      `--out ${out} is a file: --all writes one file per session into a folder; name a folder (it is created when missing)`,
    );
  }
}

function writeOutput(file: string, text: string): void {
  try {
    writeFileSync(file, text);
  } catch (error) {
    throw outputError(file, error);
  }
}

function outputError(path: string, error: unknown): CliError {
  return new CliError(
    "OUTPUT_UNAVAILABLE",
    `Cannot write ${path} (${(error as Error).message})`,
    { cause: error },
  );
}

/** How many skipped items `arbor import` lists one by one. */
const SKIPPED_SHOWN = 20;

/** Reads the file through `read`; a file that cannot be read is an `INVALID_IMPORT`. */
async function readable<T>(file: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    throw new ArborError(
      "INVALID_IMPORT",
      `Cannot read ${file}: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

/** Sessions written (stdout), then counts and the conversations skipped (stderr). */
function printReport(
  progress: ReturnType<typeof createProgress>,
  report: ImportReport,
  format: string,
): void {
  progress.finish(
    `Imported ${report.sessions.length} session(s), ${report.messagesWritten} message(s) (${format}).`,
  );
  console.error(
    `Created ${report.created.length}, updated ${report.updated.length}, skipped ${report.skipped.length}.`,
  );
  for (const info of report.sessions) console.log(`${info.id}  ${info.name}`);
  for (const skipped of report.skipped)
    console.error(
      skipped.reason === "exists"
        ? `Skipped "${skipped.title}": imported before as ${skipped.sessionId}, nothing new (--existing replace writes it again)`
        : `Skipped "${skipped.title}": it was erased (--restore-erased brings it back)`,
    );
}

/** The import report: what the file holds that was left out, and why (stderr). */
function printSkipped(items: readonly SkippedContent[], count: number): void {
  if (count === 0) return;
  console.error(`Skipped ${count} item(s) of the file:`);
  for (const item of items.slice(0, SKIPPED_SHOWN))
    console.error(`  ${item.where}: ${item.what} (${item.reason})`);
  if (count > SKIPPED_SHOWN)
    console.error(`  … and ${count - SKIPPED_SHOWN} more`);
}

function printWarnings(items: readonly ImportWarning[], count: number): void {
  for (const warning of items.slice(0, SKIPPED_SHOWN))
    console.error(`Warning: ${warning.where}: ${warning.problem}`);
  if (count > SKIPPED_SHOWN)
    console.error(`… and ${count - SKIPPED_SHOWN} more warnings`);
}

/** Loaded on demand: `arbor tree` and friends never need the parsers. */
function formats() {
  return import("../../formats/index.js");
}

async function exportText(
  manager: SessionManager,
  id: string,
  format: ExportFormat,
  leafId: string | undefined,
  toolOutput: "fold" | "full",
): Promise<string> {
  const info = await requireSession(manager, id);
  const session = manager.getSession(id);
  if (leafId !== undefined && !(await session.getMessage(leafId))) {
    throw new ArborError(
      "MESSAGE_NOT_FOUND",
      `No message "${leafId}" in session ${id}`,
    );
  }
  const { toArborJsonl, toMarkdown, toSnapshotJson } = await formats();
  if (format === "markdown") {
    return toMarkdown(info, await session.getHistory(leafId), { toolOutput });
  }
  const snapshot = await manager.exportSession(id);
  if (format === "snapshot") return toSnapshotJson(snapshot);
  const activeLeafId = leafId ?? (await session.getLatestLeaf())?.id ?? null;
  return toArborJsonl(snapshot, activeLeafId);
}
