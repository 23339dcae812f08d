import type { BlockVersion } from "../../session/contracts/block-history.js";
import type { SessionInfo } from "../../session/contracts/session-info.js";
import type {
  CompactionMeta,
  SessionMessage,
  StoredCompaction,
} from "../../session/contracts/types.js";
import { encodeMessage } from "../../session/messages/message-codec.js";
import { ArborError } from "../../session/errors/index.js";

const BLOCK_SOURCES: ReadonlySet<string> = new Set<BlockVersion["source"]>([
  "api",
  "tool",
  "revert",
  "import",
]);

/** The error of every malformed in-memory snapshot. */
export function snapshotFailure(problem: string, cause?: unknown): ArborError {
  return new ArborError(
    "INVALID_SNAPSHOT",
    `[arbor] [memory] InMemorySessionProvider.fromJSON(): ${problem}`,
    cause === undefined ? undefined : { cause },
  );
}

/** `value` as a plain object; `INVALID_SNAPSHOT` naming `path` otherwise. */
export function requireObject(
  value: unknown,
  path: string,
): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw snapshotFailure(`\`${path}\` must be an object`);
  return value as Record<string, unknown>;
}

/**
 * Reads the fields of one object of a snapshot. A missing or mistyped field throws
 * `INVALID_SNAPSHOT` naming its place (`sessions[0].messages[2].seq`), so a hand-edited or
 * truncated file fails loudly instead of restoring a store that differs from what was saved.
 */
export class SnapshotReader {
  private constructor(
    private readonly value: Record<string, unknown>,
    readonly path: string,
  ) {}

  static of(value: unknown, path: string): SnapshotReader {
    return new SnapshotReader(requireObject(value, path), path);
  }

  raw(key: string): unknown {
    return Object.hasOwn(this.value, key) ? this.value[key] : undefined;
  }

  string(key: string): string {
    const value = this.raw(key);
    if (typeof value !== "string") throw this.bad(key, "a string");
    return value;
  }

  nullableString(key: string): string | null {
    const value = this.raw(key);
    if (value !== null && typeof value !== "string")
      throw this.bad(key, "a string or null");
    return value;
  }

  finiteNumber(key: string): number {
    const value = this.raw(key);
    if (typeof value !== "number" || !Number.isFinite(value))
      throw this.bad(key, "a finite number");
    return value;
  }

  positiveInteger(key: string): number {
    const value = this.raw(key);
    if (!Number.isSafeInteger(value) || (value as number) < 1)
      throw this.bad(key, "a positive integer");
    return value as number;
  }

  array(key: string): unknown[] {
    const value = this.raw(key);
    if (!Array.isArray(value)) throw this.bad(key, "an array");
    return value;
  }

  /** An array of objects, each as a reader. */
  list(key: string): SnapshotReader[] {
    return this.array(key).map((item, index) =>
      SnapshotReader.of(item, `${this.at(key)}[${index}]`),
    );
  }

  at(key: string): string {
    return `${this.path}.${key}`;
  }

  private bad(key: string, expected: string): ArborError {
    return snapshotFailure(`\`${this.at(key)}\` must be ${expected}`);
  }
}

/** A stored message of a snapshot, checked and re-encoded exactly as an append would. */
export interface RestoredMessage {
  seq: number;
  parentId: string | null;
  createdAt: string;
  message: SessionMessage;
  json: string;
}

/**
 * The messages of one session. Sequence numbers must rise within the session and be unique in
 * the store (`seen`), ids unique in the session: the restored tree and orders then match.
 */
export function readMessages(
  session: SnapshotReader,
  seen: Set<number>,
): RestoredMessage[] {
  const ids = new Set<string>();
  let previous = 0;
  return session.list("messages").map((entry) => {
    const seq = entry.positiveInteger("seq");
    if (seq <= previous || seen.has(seq))
      throw snapshotFailure(
        `\`${entry.at("seq")}\` must be unique and rise in insertion order`,
      );
    previous = seq;
    seen.add(seq);
    let json: string;
    try {
      json = encodeMessage(entry.raw("message"));
    } catch (error) {
      throw snapshotFailure(
        `\`${entry.at("message")}\` is not a valid message`,
        error,
      );
    }
    const message = JSON.parse(json) as SessionMessage;
    if (ids.has(message.id))
      throw snapshotFailure(`message id "${message.id}" appears twice`);
    ids.add(message.id);
    return {
      seq,
      parentId: entry.nullableString("parentId"),
      createdAt: entry.string("createdAt"),
      message,
      json,
    };
  });
}

export function readCompactions(session: SnapshotReader): StoredCompaction[] {
  return session.list("compactions").map((entry) => {
    const compaction: StoredCompaction = {
      id: entry.string("id"),
      summary: entry.string("summary"),
      fromMessageId: entry.string("fromMessageId"),
      toMessageId: entry.string("toMessageId"),
      createdAt: entry.string("createdAt"),
    };
    const meta = entry.raw("meta");
    if (meta !== undefined)
      compaction.meta = structuredClone(
        requireObject(meta, entry.at("meta")) as CompactionMeta,
      );
    return compaction;
  });
}

/** `[key, value]` string pairs (config, context rows): keys are user data, so no plain object. */
export function readPairs(
  reader: SnapshotReader,
  key: string,
): Array<[string, string]> {
  return reader.array(key).map((pair, index) => {
    if (
      !Array.isArray(pair) ||
      pair.length !== 2 ||
      typeof pair[0] !== "string" ||
      typeof pair[1] !== "string"
    ) {
      throw snapshotFailure(
        `\`${reader.at(key)}[${index}]\` must be a [string, string] pair`,
      );
    }
    return [pair[0], pair[1]];
  });
}

/** The versions of one block label, numbered 1, 2, 3 … as `record()` numbers them. */
export function readBlockVersions(entry: SnapshotReader): BlockVersion[] {
  return entry.list("versions").map((version, index) => {
    if (version.raw("version") !== index + 1)
      throw snapshotFailure(
        `\`${version.at("version")}\` must be ${index + 1}`,
      );
    const source = version.string("source");
    if (!BLOCK_SOURCES.has(source))
      throw snapshotFailure(
        `\`${version.at("source")}\` is not a known source`,
      );
    const toolCallId = version.raw("toolCallId");
    if (toolCallId !== undefined && typeof toolCallId !== "string")
      throw snapshotFailure(`\`${version.at("toolCallId")}\` must be a string`);
    return {
      version: index + 1,
      content: version.string("content"),
      previousContent: version.nullableString("previousContent"),
      source: source as BlockVersion["source"],
      ...(toolCallId !== undefined ? { toolCallId } : {}),
      at: version.string("at"),
    };
  });
}

export function readSessionInfo(entry: SnapshotReader): SessionInfo {
  return {
    id: entry.string("id"),
    name: entry.string("name"),
    parent_session_id: entry.nullableString("parent_session_id"),
    model: entry.nullableString("model"),
    source: entry.nullableString("source"),
    input_tokens: entry.finiteNumber("input_tokens"),
    output_tokens: entry.finiteNumber("output_tokens"),
    estimated_cost: entry.finiteNumber("estimated_cost"),
    end_reason: entry.nullableString("end_reason"),
    created_at: entry.string("created_at"),
    updated_at: entry.string("updated_at"),
  };
}
