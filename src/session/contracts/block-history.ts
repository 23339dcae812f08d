/** One recorded write to a writable block (docs/behavior/context-blocks.md). */
export interface BlockVersion {
  /** 1, 2, 3 … per (session, label). */
  version: number;
  /** The block content after this write. */
  content: string;
  previousContent: string | null;
  source: "api" | "tool" | "revert" | "import";
  toolCallId?: string;
  /** ISO-8601 UTC with milliseconds. */
  at: string;
}

/**
 * Durable history of block writes for one session. Backends store it beside the blocks
 * (`arbor_block_history`); sessions over custom providers keep it in memory.
 */
export interface BlockHistoryStore {
  /** Records a write; assigns and returns the next version for the label. */
  record(
    label: string,
    entry: Omit<BlockVersion, "version" | "at"> & { at?: string },
  ): BlockVersion | Promise<BlockVersion>;
  /** Every version of the label, oldest first. */
  list(label: string): BlockVersion[] | Promise<BlockVersion[]>;
  /** Deletes the history of this session (used when a session is deleted or replaced). */
  clear?(): void | Promise<void>;
}
