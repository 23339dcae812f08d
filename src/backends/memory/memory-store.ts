import { InMemoryBlockHistory } from "./memory-block-history.js";
import { MemoryAttachments } from "./memory-attachments.js";
import { publishMemoryChange } from "./memory-changes.js";
import { InProcessChangeLog } from "../../session/state/change-feed.js";
import type { SessionInfo } from "../../session/contracts/session-info.js";
import type { StoredCompaction } from "../../session/contracts/types.js";
import { MemoryTextIndex } from "./memory-text-index.js";
import type { MemoryRow } from "./memory-row.js";

export type { MemoryRow } from "./memory-row.js";

/** The stored chunks of one chat answer (memory-streams.ts). */
export interface MemoryStream {
  streamId: string;
  status: "active" | "done";
  stopRequested: boolean;
  chunks: string[];
  updatedAt: number;
}

/** Everything stored for one session id. */
export class MemorySessionData {
  readonly rows = new Map<string, MemoryRow>();
  /** Rows in insertion order; kept sorted by seq. */
  ordered: MemoryRow[] = [];
  readonly children = new Map<string, MemoryRow[]>();
  compactions: StoredCompaction[] = [];
  readonly config = new Map<string, string>();
  latestLeaf: MemoryRow | null | undefined = undefined;
  /** The rows' text index: every write that adds, changes or removes a row tells it. */
  readonly textIndex = new MemoryTextIndex();

  childCount(id: string): number {
    return this.children.get(id)?.length ?? 0;
  }

  removeChild(parentId: string, id: string): void {
    const siblings = this.children.get(parentId);
    if (!siblings) return;
    const remaining = siblings.filter((row) => row.id !== id);
    if (remaining.length > 0) this.children.set(parentId, remaining);
    else this.children.delete(parentId);
  }
}

/**
 * The shared store behind every `InMemorySessionProvider` made from one another with
 * `forSession()`: one insertion sequence, many sessions, and the context rows of auto-wired blocks.
 */
export class MemoryStore {
  private nextSeq = 1;
  readonly sessions = new Map<string, MemorySessionData>();
  readonly contextRows = new Map<string, string>();
  readonly blockHistories = new Map<string, InMemoryBlockHistory>();
  /** Attachment bytes by hash and their references (docs/behavior/storage.md#attachments). */
  readonly attachments = new MemoryAttachments();
  /** SessionManager registry rows, by session id. */
  readonly registry = new Map<string, SessionInfo>();
  /** Whether tool outputs are indexed (docs/behavior/search.md#tool-outputs). */
  toolOutputs = false;
  /**
   * The store's change feed (memory-changes.ts): the store lives in one process, so every object
   * over it (providers, the backend) publishes to and watches this one log.
   */
  readonly changes = new InProcessChangeLog();
  /** The chat answers being generated, by session (memory-streams.ts, the `streams` capability). */
  readonly chatStreams = new Map<string, MemoryStream>();

  takeSeq(): number {
    return this.nextSeq++;
  }

  /** The data of a session, created on first write. */
  session(sessionId: string): MemorySessionData {
    let data = this.sessions.get(sessionId);
    if (!data) {
      data = new MemorySessionData();
      this.sessions.set(sessionId, data);
    }
    return data;
  }

  /** The block history of a session (docs/behavior/context-blocks.md); survives clearing the messages. */
  blockHistory(sessionId: string): InMemoryBlockHistory {
    let history = this.blockHistories.get(sessionId);
    if (!history) {
      history = new InMemoryBlockHistory((label) =>
        publishMemoryChange(this, sessionId, "block", [label]),
      );
      this.blockHistories.set(sessionId, history);
    }
    return history;
  }

  peek(sessionId: string): MemorySessionData | undefined {
    return this.sessions.get(sessionId);
  }

  /** The seq the next row will get (snapshots keep it, so restored stores continue the order). */
  peekSeq(): number {
    return this.nextSeq;
  }

  /** Moves the sequence past restored rows so later appends sort after them. */
  observeSeq(seq: number): void {
    if (seq >= this.nextSeq) this.nextSeq = seq + 1;
  }
}
