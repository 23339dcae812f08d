/**
 * Skills stored as objects in a Cloudflare R2 bucket (docs/behavior/context-blocks.md). Typed against the smallest
 * structural bucket interface it uses, so it takes a Workers `R2Bucket` binding, miniflare's
 * bucket, or any look-alike, and imports nothing: this file must load in workerd.
 */

/** One listed object: its full storage key and, when asked for, its custom metadata. */
export interface R2ObjectLike {
  key: string;
  customMetadata?: Record<string, string>;
}

/** One page of a listing; `cursor` continues it while `truncated` is true. */
export interface R2ObjectsLike {
  objects: R2ObjectLike[];
  truncated: boolean;
  cursor?: string;
}

/** The options `R2SkillProvider` passes to `list()`. */
export interface R2ListOptionsLike {
  prefix: string;
  cursor?: string;
  include: Array<"customMetadata">;
}

/** The part of an R2 bucket that `R2SkillProvider` uses. A Workers `R2Bucket` satisfies it. */
export interface R2BucketLike {
  list(options: R2ListOptionsLike): Promise<R2ObjectsLike>;
  get(key: string): Promise<{ text(): Promise<string> } | null>;
  put(
    key: string,
    value: string,
    options?: { customMetadata?: Record<string, string> },
  ): Promise<unknown>;
}

export interface R2SkillProviderOptions {
  /** Prepended to every storage key and stripped from listed keys. Default `""`. */
  prefix?: string;
  /**
   * Prefix-relative keys that `get()` lists and `load()` reads; empty or omitted allows all.
   * `set()` ignores it (and warns when it writes a key this list hides).
   */
  keys?: readonly string[];
}

/**
 * A skill block whose documents are objects in an R2 bucket. `get()` lists every allowed object
 * as `- <key>: <description>` (the description is the object's `customMetadata.description`),
 * `load(key)` returns an object's text, and `set(key, content, description?)` stores one.
 *
 * @example
 * ```ts
 * import { R2SkillProvider, Session } from "arbor-memory/session";
 *
 * const session = Session.create(this)
 *   .withContext("skills", {
 *     description: "Playbooks; load one when the task needs it",
 *     provider: new R2SkillProvider(env.SKILLS, { prefix: "skills/" }),
 *   });
 * ```
 */
export class R2SkillProvider {
  private readonly prefix: string;
  private readonly allowed: ReadonlySet<string> | null;

  constructor(
    private readonly bucket: R2BucketLike,
    options: R2SkillProviderOptions = {},
  ) {
    this.prefix = options.prefix ?? "";
    this.allowed =
      options.keys && options.keys.length > 0 ? new Set(options.keys) : null;
  }

  /** The skill list for the system prompt, one line per allowed object; `null` for none. */
  async get(): Promise<string | null> {
    const lines: string[] = [];
    let cursor: string | undefined;
    do {
      const options: R2ListOptionsLike = {
        prefix: this.prefix,
        include: ["customMetadata"],
      };
      if (cursor !== undefined) options.cursor = cursor;
      const page = await this.bucket.list(options);
      for (const object of page.objects) {
        const key = this.relativeKey(object.key);
        // An object named exactly like the prefix (a "folder marker") has no key to load.
        if (key === null || key === "" || !this.isAllowed(key)) continue;
        const description = object.customMetadata?.description;
        lines.push(description ? `- ${key}: ${description}` : `- ${key}`);
      }
      // Stop on a truncated page without a cursor rather than listing page one forever.
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor);
    return lines.length > 0 ? lines.join("\n") : null;
  }

  /** The text of the skill `key`, or `null` when it is not allowed or does not exist. */
  async load(key: string): Promise<string | null> {
    // Check the allow-list first: a hidden key must not cost (or reveal) a bucket read.
    if (!this.isAllowed(key)) return null;
    const object = await this.bucket.get(this.prefix + key);
    return object ? await object.text() : null;
  }

  /** Stores `content` under `prefix + key`, with `customMetadata.description` when given. */
  async set(key: string, content: string, description?: string): Promise<void> {
    await this.bucket.put(
      this.prefix + key,
      content,
      description === undefined ? {} : { customMetadata: { description } },
    );
    if (!this.isAllowed(key)) {
      console.warn(
        `[arbor] [r2] Skill "${key}" was written to "${this.prefix + key}", but it is not in ` +
          "the provider's `keys` allow-list, so get() will never list it and load() will never " +
          "read it. Add it to `keys` to make it loadable.",
      );
    }
  }

  // --- Internal helpers ---

  private isAllowed(key: string): boolean {
    return this.allowed === null || this.allowed.has(key);
  }

  private relativeKey(storageKey: string): string | null {
    return storageKey.startsWith(this.prefix)
      ? storageKey.slice(this.prefix.length)
      : null;
  }
}
