// The minimal custom provider of docs/custom-providers.md, kept compiling and passing the
// conformance suite by test/providers/map-example.test.ts. In your code, import from
// "arbor-memory/session" and "arbor-memory/utils" instead of ../src.
import {
  assertCompactionArguments,
  type CompactionMeta,
  type MessageWrite,
  type SessionMessage,
  type SessionProvider,
  type StoredCompaction,
  type WriteMessagesOptions,
  type WriteMessagesResult,
} from "../src/session/index.js";
import { applyCompactions } from "../src/utils/index.js";

interface Row {
  json: string;
  parentId: string | null;
  seq: number;
}

interface SessionData {
  rows: Map<string, Row>;
  overlays: StoredCompaction[];
}

/** Every session of one store; share it between providers with `forSession()`. */
export class MapStore {
  readonly sessions = new Map<string, SessionData>();
  nextSeq = 1;
}

/** A message store in plain Maps: the required members only, no search. */
export class MapSessionProvider implements SessionProvider {
  constructor(
    private readonly store = new MapStore(),
    readonly sessionId = "",
  ) {}

  /** Sessions over the same store share one append lock. */
  get storeIdentity(): object {
    return this.store;
  }

  forSession(sessionId: string): MapSessionProvider {
    return new MapSessionProvider(this.store, sessionId);
  }

  getMessage(id: string): SessionMessage | null {
    const row = this.data().rows.get(id);
    return row ? parse(row.json) : null;
  }

  getHistory(leafId?: string | null): SessionMessage[] {
    const path = this.pathIds(leafId).map((id) => this.getMessage(id)!);
    return applyCompactions(path, this.data().overlays);
  }

  getLatestLeaf(): SessionMessage | null {
    const id = this.latestLeafId();
    return id === null ? null : this.getMessage(id);
  }

  getBranches(messageId: string): SessionMessage[] {
    return this.sortedRows()
      .filter(([, row]) => row.parentId === messageId)
      .map(([, row]) => parse(row.json));
  }

  getPathLength(leafId?: string | null): number {
    return this.pathIds(leafId).length;
  }

  /** The one write: a chain, each under the one before, the first under `parentId`. */
  writeMessages(
    messages: readonly MessageWrite[],
    { parentId }: WriteMessagesOptions = {},
  ): WriteMessagesResult {
    const { rows } = this.data();
    let parent: string | null = null;
    if (parentId === undefined) parent = this.latestLeafId();
    else if (parentId !== null && rows.has(parentId)) parent = parentId;
    const firstParentId = parent;
    const inserted = messages.map(({ message, json }) => {
      const taken = rows.has(message.id); // first write wins
      if (!taken)
        rows.set(message.id, {
          json: json ?? JSON.stringify(message),
          parentId: parent,
          seq: this.store.nextSeq++,
        });
      parent = message.id; // the next one goes under it, taken or not
      return !taken;
    });
    return { inserted, firstParentId };
  }

  updateMessage(message: SessionMessage): void {
    const row = this.data().rows.get(message.id);
    if (row) row.json = JSON.stringify(message);
  }

  deleteMessages(ids: readonly string[]): void {
    const data = this.data();
    const doomed = new Set(ids.filter((id) => data.rows.has(id)));
    // Overlays first: their ranges are read on the tree before the delete.
    data.overlays = data.overlays.flatMap((overlay) => {
      const { fromMessageId: from, toMessageId: to } = overlay;
      if (!doomed.has(from) && !doomed.has(to)) return [overlay];
      const path = this.pathIds(to);
      const start = path.indexOf(from);
      const kept =
        start < 0 ? [] : path.slice(start).filter((id) => !doomed.has(id));
      return kept.length === 0
        ? []
        : [{ ...overlay, fromMessageId: kept[0]!, toMessageId: kept.at(-1)! }];
    });
    // Survivors move up to the nearest surviving ancestor.
    for (const row of data.rows.values()) {
      let parent = row.parentId;
      while (parent !== null && doomed.has(parent)) {
        parent = data.rows.get(parent)!.parentId;
      }
      row.parentId = parent;
    }
    for (const id of doomed) data.rows.delete(id);
  }

  clearMessages(): void {
    this.store.sessions.delete(this.sessionId);
  }

  addCompaction(
    summary: string,
    fromMessageId: string,
    toMessageId: string,
    meta?: CompactionMeta,
  ): StoredCompaction {
    // The shared rule: non-empty string summary and ids, or a TypeError (INVALID_ARGUMENT).
    assertCompactionArguments(summary, fromMessageId, toMessageId);
    const overlay: StoredCompaction = {
      id: crypto.randomUUID(),
      summary,
      fromMessageId,
      toMessageId,
      createdAt: new Date().toISOString(),
      ...(meta ? { meta } : {}),
    };
    this.data().overlays.push(overlay);
    return structuredClone(overlay);
  }

  getCompactions(): StoredCompaction[] {
    return structuredClone(this.data().overlays);
  }

  // --- Internal helpers ---

  private data(): SessionData {
    let data = this.store.sessions.get(this.sessionId);
    if (!data) {
      data = { rows: new Map(), overlays: [] };
      this.store.sessions.set(this.sessionId, data);
    }
    return data;
  }

  private sortedRows(): Array<[string, Row]> {
    return [...this.data().rows].sort(([, a], [, b]) => a.seq - b.seq);
  }

  /** The newest row without children. */
  private latestLeafId(): string | null {
    const rows = this.sortedRows();
    const parents = new Set(rows.map(([, row]) => row.parentId));
    const leaves = rows.filter(([id]) => !parents.has(id));
    return leaves.at(-1)?.[0] ?? null;
  }

  /** Root → leaf ids; each id visited once, so a cycle cannot loop. */
  private pathIds(leafId?: string | null): string[] {
    const { rows } = this.data();
    const path: string[] = [];
    const seen = new Set<string>();
    let id = leafId || this.latestLeafId();
    while (id !== null && rows.has(id) && !seen.has(id)) {
      seen.add(id);
      path.push(id);
      id = rows.get(id)!.parentId;
    }
    return path.reverse();
  }
}

/** Stored JSON back to a message, with `createdAt` revived to a Date (docs/behavior/messages-and-tree.md). */
function parse(json: string): SessionMessage {
  const message = JSON.parse(json) as SessionMessage;
  const createdAt = message.createdAt as unknown;
  if (typeof createdAt === "string" && !Number.isNaN(Date.parse(createdAt))) {
    message.createdAt = new Date(createdAt);
  }
  return message;
}
