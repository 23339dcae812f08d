// Context blocks and their history, kept as documents of the store: a block is one document
// (`context:<key>`), a session's block history one document (`blocks:<sessionId>`) holding every
// label's versions.
import type {
  BlockHistoryStore,
  BlockVersion,
  WritableContextProvider,
} from "arbor-memory/session";
import type { KvStore } from "./kv-store.js";

/** A writable block stored under `key`. */
export class KvContextProvider implements WritableContextProvider {
  constructor(
    private readonly store: KvStore,
    private readonly key: string,
  ) {}

  async get(): Promise<string | null> {
    return this.store.read<string>(`context:${this.key}`);
  }

  async set(content: string): Promise<void> {
    this.store.write(`context:${this.key}`, content);
  }
}

export type BlockVersions = Record<string, BlockVersion[]>;

/** A session's block history: one document, every label's versions oldest first. */
export class KvBlockHistory implements BlockHistoryStore {
  constructor(
    private readonly store: KvStore,
    private readonly sessionId: string,
  ) {}

  record(
    label: string,
    entry: Omit<BlockVersion, "version" | "at"> & { at?: string },
  ): BlockVersion {
    const versions = this.versions();
    const list = versions[label] ?? [];
    const version: BlockVersion = {
      // After an erase removed versions, numbering continues after the last one left.
      version: (list.at(-1)?.version ?? 0) + 1,
      content: entry.content,
      previousContent: entry.previousContent,
      source: entry.source,
      ...(entry.toolCallId !== undefined
        ? { toolCallId: entry.toolCallId }
        : {}),
      at: entry.at ?? new Date().toISOString(),
    };
    versions[label] = [...list, version];
    this.store.write(blocksKey(this.sessionId), versions);
    this.store.changes.record(this.sessionId, "block", [label]);
    return version;
  }

  list(label: string): BlockVersion[] {
    return this.versions()[label] ?? [];
  }

  clear(): void {
    this.store.delete(blocksKey(this.sessionId));
  }

  private versions(): BlockVersions {
    return this.store.read<BlockVersions>(blocksKey(this.sessionId)) ?? {};
  }
}

export function blocksKey(sessionId: string): string {
  return `blocks:${sessionId}`;
}
