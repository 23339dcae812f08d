import type { SessionSnapshot } from "../session/contracts/session-info.js";

/** The formats `parseConversations()` reads (docs/formats.md). */
export type ImportFormat =
  | "snapshot"
  | "arbor-jsonl"
  | "chatgpt"
  | "openai"
  | "ui-messages"
  | "pi"
  | "claude-code"
  | "codex";

/** Every format `parseConversations()` knows, in detection order. */
export const IMPORT_FORMATS: readonly ImportFormat[] = [
  "snapshot",
  "arbor-jsonl",
  "chatgpt",
  "openai",
  "ui-messages",
  "pi",
  "claude-code",
  "codex",
];

/** Something of the source that the import leaves out, and why (the import report). */
export interface SkippedContent {
  /** Where it is: `conversation "Trip" node "abc"`, `line 7`. */
  where: string;
  /** What it is: a content type, a line type, `image`, … */
  what: string;
  reason: string;
}

/** Where a conversation comes from (kept in the session's metadata as `import.*`). */
export interface ImportSource {
  /** The format family (`chatgpt`, `claude-code`, …; `arbor` for Arbor's own files). */
  format: string;
  id: string | null;
  fileName?: string;
}

/** A conversation's own creation and last update, ISO-8601. */
export interface ConversationTimes {
  createdAt: string;
  updatedAt: string;
}

/** Something of the source the import repaired (with `lenient`), and how. */
export interface ImportWarning {
  where: string;
  problem: string;
}

/** One conversation read from a file, checked and ready for `importConversations()`. */
export interface ParsedConversation {
  /** Everything the import writes: messages in insertion order with parents, overlays, blocks. */
  snapshot: SessionSnapshot;
  /** The leaf the conversation was on (ChatGPT `current_node`, the last entry of a JSONL, …). */
  activeLeafId: string | null;
  /** A display name: the ChatGPT title, the file name, the first user words. */
  title: string;
  format: ImportFormat;
  /**
   * Every version of a block, oldest first, when the file holds more than one (several `block`
   * lines for one label in tree JSONL). `snapshot.contextBlocks` holds the last one.
   */
  blockVersions?: Record<string, string[]>;
  /** What the file holds that the import leaves out, and why; absent or empty when nothing. */
  skipped?: SkippedContent[];
  /**
   * When the conversation itself began and was last updated (ISO-8601), which become the
   * session's `created_at` and `updated_at`. Absent where the file carries no times (the session
   * then gets the import's) or a registry row of its own (`snapshot.info`).
   */
  times?: ConversationTimes;
  /**
   * Where the conversation comes from, which identifies it across imports: re-importing the same
   * source finds the session made from it. `id` is the source's own conversation or session id;
   * `null` where the format has none (OpenAI and UIMessage arrays), and a hash of the content
   * stands in.
   */
  source?: ImportSource;
  /**
   * The index, in the same parse result, of the conversation this one belongs to (a Claude Code
   * subagent run's main session): the import sets this session's `parent_session_id` to it.
   */
  parentIndex?: number;
  /**
   * The source of the conversation this one belongs to when that is in another file (a Claude
   * Code 2.x subagent file, `agent-*.jsonl`, names its session by id). Whichever of the two is
   * imported second, the import sets this session's `parent_session_id` to the session imported
   * from that source, once both are in the store.
   */
  parentSource?: ImportSource;
  /** What `lenient` repaired (entries attached to the root); absent or empty when nothing. */
  warnings?: ImportWarning[];
}

/** Options of `parseConversations()`. */
export interface ParseOptions {
  /** The format, or `"auto"` (default) to detect it from the text and the file name. */
  format?: ImportFormat | "auto";
  /** The file's name: a hint for detection and the fallback title. */
  fileName?: string;
  /**
   * Import a trimmed fragment: an entry whose parent is not in the file is attached to the root,
   * with a warning in `warnings`, instead of failing the import (default `false`).
   */
  lenient?: boolean;
}
