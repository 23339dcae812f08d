import type { StoredMessageRecord } from "./provider.js";
import type { StoredCompaction } from "./types.js";

/** The session registry row (docs/behavior/manager.md). */
export interface SessionInfo {
  id: string;
  name: string;
  parent_session_id: string | null;
  model: string | null;
  source: string | null;
  input_tokens: number;
  output_tokens: number;
  estimated_cost: number;
  end_reason: string | null;
  created_at: string;
  updated_at: string;
}

/** A created block's definition as a snapshot carries it (`SessionSnapshot.createdBlocks`). */
export interface CreatedBlockDefinition {
  description?: string;
  maxTokens?: number;
}

/** A whole session as data (docs/behavior/manager.md): every branch, overlays, owned blocks and the prompt. */
export interface SessionSnapshot {
  format: "arbor.session";
  version: 1;
  sessionId: string;
  exportedAt: string;
  /** All branches, in insertion order. */
  messages: Array<{
    message: StoredMessageRecord["message"];
    parentId: string | null;
    createdAt: string;
  }>;
  compactions: StoredCompaction[];
  /**
   * The leaf of the active branch at export (a branch chosen with `switchBranch()` included);
   * an import makes it active again. Absent in snapshots of older versions.
   */
  activeLeafId?: string | null;
  /** Contents of the session's own (auto-wired) writable blocks, by label. */
  contextBlocks?: Record<string, string>;
  /**
   * The definitions of the blocks created at run time (`manager.createContextBlock()`), by label;
   * their contents are in `contextBlocks`. A manager's import and a fork define them again.
   * Absent in snapshots of older versions and of sessions without created blocks.
   */
  createdBlocks?: Record<string, CreatedBlockDefinition>;
  /** The persisted frozen prompt, if any. */
  systemPrompt?: string | null;
  info?: SessionInfo;
  ownerId?: string;
  metadata?: Record<string, string>;
  /** HMAC-SHA256 of the snapshot without this field, when the exporter had a key. */
  signature?: string;
}
