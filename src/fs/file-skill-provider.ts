import { randomUUID } from "node:crypto";
import {
  mkdir,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  writeFile,
} from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { ArborTypeError } from "../session/errors/index.js";
import {
  describeMarkdown,
  renderFrontMatter,
  splitFrontMatter,
} from "./_front-matter.js";
import {
  exists,
  isInside,
  parseKey,
  realpathOrNull,
  type ParsedKey,
} from "./_safe-path.js";

const DEFAULT_EXTENSIONS: readonly string[] = [".md"];

export interface FileSkillProviderOptions {
  /** File extensions that hold skills, in order of preference. Default `[".md"]`. */
  extensions?: readonly string[];
  /** Also list (and accept keys for) files in sub-folders, keyed `folder/name`. Default `true`. */
  recursive?: boolean;
}

/**
 * A skill block over a directory of Markdown files, for Node. The key of `guides/deploy.md` is
 * `guides/deploy`. `get()` lists every skill sorted by key as `- <key>: <description>`, the
 * description being the front matter `description:` or else the first `#` heading; `load(key)`
 * returns the file without its front matter; `set(key, content, description?)` writes a file
 * (creating folders), with the description as front matter.
 *
 * Keys come from the model, so they are confined to the directory: keys with `..`, `.` or
 * hidden segments, absolute paths, backslashes or control characters are refused, and every
 * path is checked by realpath, so a symbolic link cannot lead outside either. A refused key
 * makes `load()` return `null` and `set()` throw a `TypeError` with code `INVALID_ARGUMENT`.
 *
 * @example
 * ```ts
 * import { Session } from "arbor-memory/session";
 * import { openSqlite } from "arbor-memory/sqlite";
 * import { FileSkillProvider } from "arbor-memory/fs";
 *
 * const session = Session.create(openSqlite("memory.db")).withContext("skills", {
 *   description: "Playbooks; load one when the task needs it",
 *   provider: new FileSkillProvider("./skills"),
 * });
 * ```
 */
export class FileSkillProvider {
  private readonly directory: string;
  private readonly extensions: readonly string[];
  private readonly recursive: boolean;

  constructor(directory: string, options: FileSkillProviderOptions = {}) {
    if (typeof directory !== "string" || directory === "") {
      throw new ArborTypeError(
        "INVALID_ARGUMENT",
        '[arbor] [fs] FileSkillProvider needs a directory path, for example new FileSkillProvider("./skills").',
      );
    }
    const extensions = options.extensions ?? DEFAULT_EXTENSIONS;
    if (
      extensions.length === 0 ||
      extensions.some(
        (extension) =>
          !/^\.[^/\\\0]+$/.test(extension) || extension.startsWith(".."),
      )
    ) {
      throw new ArborTypeError(
        "INVALID_ARGUMENT",
        `[arbor] [fs] Invalid extensions ${JSON.stringify(extensions)}: give one or more extensions starting with ".", such as [".md"].`,
      );
    }
    this.directory = resolve(directory);
    this.extensions = [...extensions];
    this.recursive = options.recursive ?? true;
  }

  /** One line per skill, sorted by key; `null` when the directory has none (or is missing). */
  async get(): Promise<string | null> {
    const root = await realpathOrNull(this.directory);
    if (root === null) return null;
    const files = new Map<string, { path: string; rank: number }>();
    await this.collect(root, root, [], files, new Set([root]));
    if (files.size === 0) return null;

    const lines: string[] = [];
    const sorted = [...files].sort(([left], [right]) =>
      compareKeys(left, right),
    );
    for (const [key, { path }] of sorted) {
      const text = await readFile(path, "utf8");
      const description = describeMarkdown(text);
      lines.push(description ? `- ${key}: ${description}` : `- ${key}`);
    }
    return lines.join("\n");
  }

  /** The skill's text without its front matter, or `null` for a missing or refused key. */
  async load(key: string): Promise<string | null> {
    const parsed = parseKey(key, this.recursive);
    if (!parsed.ok) return null;
    const root = await realpathOrNull(this.directory);
    if (root === null) return null;
    const path = await this.findFile(root, parsed.segments);
    if (path === null) return null;
    return splitFrontMatter(await readFile(path, "utf8")).body;
  }

  /**
   * Writes the skill `key` (replacing the whole file), creating folders as needed. With a
   * description, the file starts with front matter holding it. Written atomically (a temporary
   * file renamed into place), so a concurrent `load()` sees the old or the new text.
   */
  async set(key: string, content: string, description?: string): Promise<void> {
    const segments = this.requireKey(key, parseKey(key, this.recursive));
    if (
      typeof content !== "string" ||
      (description !== undefined && typeof description !== "string")
    ) {
      throw new ArborTypeError(
        "INVALID_ARGUMENT",
        `[arbor] [fs] set(${JSON.stringify(key)}) needs a string content and, if given, a string description.`,
      );
    }
    await mkdir(this.directory, { recursive: true });
    const root = await realpathOrNull(this.directory);
    if (root === null) throw this.outside(key);

    const target = await this.writeTarget(root, key, segments);
    const text =
      description === undefined
        ? content
        : renderFrontMatter(description) + content;
    // The temporary file starts with "." so a concurrent get() never lists it.
    const temporary = join(dirname(target), `.arbor-${randomUUID()}.tmp`);
    try {
      await writeFile(temporary, text, { encoding: "utf8", flag: "wx" });
      await rename(temporary, target);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }

  // --- Internal helpers ---

  /** Walks `directory`, recording every skill file whose realpath stays inside `root`. */
  private async collect(
    root: string,
    directory: string,
    prefix: string[],
    files: Map<string, { path: string; rank: number }>,
    ancestors: ReadonlySet<string>,
  ): Promise<void> {
    for (const entry of await readdir(directory, { withFileTypes: true })) {
      if (entry.name.startsWith(".")) continue;
      const real = await realpathOrNull(join(directory, entry.name));
      if (real === null || !isInside(root, real)) continue;
      const info = entry.isSymbolicLink() ? await stat(real) : entry;
      if (info.isDirectory()) {
        // A folder linking to one of its ancestors would loop forever; two links to the same
        // folder are fine (each gives its own keys, as load() would accept them).
        if (!this.recursive || ancestors.has(real)) continue;
        await this.collect(
          root,
          real,
          [...prefix, entry.name],
          files,
          new Set([...ancestors, real]),
        );
      } else if (info.isFile()) {
        const rank = this.extensions.findIndex(
          (extension) =>
            entry.name.endsWith(extension) &&
            entry.name.length > extension.length,
        );
        if (rank === -1) continue;
        const name = entry.name.slice(0, -this.extensions[rank]!.length);
        const key = [...prefix, name].join("/");
        // List only what load() would accept.
        if (!parseKey(key, this.recursive).ok) continue;
        const known = files.get(key);
        if (!known || rank < known.rank) files.set(key, { path: real, rank });
      }
    }
  }

  /** The realpath of the first existing file for the key that stays inside `root`. */
  private async findFile(
    root: string,
    segments: string[],
  ): Promise<string | null> {
    for (const extension of this.extensions) {
      const real = await realpathOrNull(join(root, ...segments) + extension);
      if (real === null || !isInside(root, real)) continue;
      if ((await stat(real)).isFile()) return real;
    }
    return null;
  }

  /**
   * Where `set()` writes: the existing file for the key (first extension that exists), else a
   * new file with the first extension. Refuses any path that resolves outside `root`.
   */
  private async writeTarget(
    root: string,
    key: string,
    segments: string[],
  ): Promise<string> {
    const base = join(root, ...segments);
    // The constructor refuses an empty list.
    let candidate = base + this.extensions[0]!;
    for (const extension of this.extensions) {
      if (await exists(base + extension)) {
        candidate = base + extension;
        break;
      }
    }
    // The deepest existing ancestor decides where mkdir would create the folders.
    let ancestor = dirname(candidate);
    while (!(await exists(ancestor))) ancestor = dirname(ancestor);
    const realAncestor = await realpathOrNull(ancestor);
    if (realAncestor === null || !isInside(root, realAncestor, true)) {
      throw this.outside(key);
    }
    await mkdir(dirname(candidate), { recursive: true });
    const parent = await realpathOrNull(dirname(candidate));
    if (parent === null || !isInside(root, parent, true)) {
      throw this.outside(key);
    }
    if (!(await exists(candidate))) return join(parent, basename(candidate));

    // An existing entry: write through it only if it is a file inside the directory.
    const real = await realpathOrNull(candidate);
    if (real === null || !isInside(root, real)) throw this.outside(key);
    if (!(await stat(real)).isFile()) {
      throw this.invalid(key, "a folder already has this name");
    }
    return real;
  }

  private requireKey(key: string, parsed: ParsedKey): string[] {
    if (!parsed.ok) throw this.invalid(key, parsed.reason);
    return parsed.segments;
  }

  private invalid(key: unknown, reason: string): ArborTypeError {
    return new ArborTypeError(
      "INVALID_ARGUMENT",
      `[arbor] [fs] Invalid skill key ${JSON.stringify(key)}: ${reason}. Use a relative path inside the skill directory, such as "guides/deploy".`,
    );
  }

  private outside(key: string): ArborTypeError {
    return new ArborTypeError(
      "INVALID_ARGUMENT",
      `[arbor] [fs] Skill key ${JSON.stringify(key)} leads through a symbolic link outside the skill directory ${JSON.stringify(this.directory)}, or to nothing (a dangling link); set() does not write there. Remove the link or use another key.`,
    );
  }
}

/** Code-unit order: the same on every machine, whatever the locale. */
function compareKeys(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
