import type {
  BlockHistoryStore,
  BlockVersion,
} from "../../contracts/block-history.js";

/** Block history kept in the process: for in-memory sessions and custom providers. */
export class InMemoryBlockHistory implements BlockHistoryStore {
  private readonly versions = new Map<string, BlockVersion[]>();

  record(
    label: string,
    entry: Omit<BlockVersion, "version" | "at"> & { at?: string },
  ): BlockVersion {
    const list = this.versions.get(label) ?? [];
    const version: BlockVersion = {
      version: list.length + 1,
      content: entry.content,
      previousContent: entry.previousContent,
      source: entry.source,
      ...(entry.toolCallId !== undefined
        ? { toolCallId: entry.toolCallId }
        : {}),
      at: entry.at ?? new Date().toISOString(),
    };
    list.push(version);
    this.versions.set(label, list);
    return { ...version };
  }

  list(label: string): BlockVersion[] {
    return (this.versions.get(label) ?? []).map((version) => ({ ...version }));
  }

  /** Every label with its versions, oldest first, as copies (for snapshots). */
  entries(): Array<[label: string, versions: BlockVersion[]]> {
    return [...this.versions.keys()].map((label) => [label, this.list(label)]);
  }

  /** Puts back the versions of a label from a snapshot; later writes continue the numbering. */
  load(label: string, versions: readonly BlockVersion[]): void {
    this.versions.set(
      label,
      versions.map((version) => ({ ...version })),
    );
  }

  clear(): void {
    this.versions.clear();
  }
}
