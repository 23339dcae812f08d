import type {
  BlockHistoryStore,
  BlockVersion,
} from "../../session/contracts/block-history.js";

/** Block history kept in the process: for in-memory sessions and custom providers. */
export class InMemoryBlockHistory implements BlockHistoryStore {
  private readonly versions = new Map<string, BlockVersion[]>();

  /** `onRecord` is told the label of each recorded write (the in-memory store's change feed). */
  constructor(private readonly onRecord?: (label: string) => void) {}

  record(
    label: string,
    entry: Omit<BlockVersion, "version" | "at"> & { at?: string },
  ): BlockVersion {
    const list = this.versions.get(label) ?? [];
    const version: BlockVersion = {
      // After an erase removed entries, numbering continues after the last one left.
      version: (list.at(-1)?.version ?? 0) + 1,
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
    this.onRecord?.(label);
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

  /**
   * Removes the entries `doomed` picks (an erase); an entry that followed a removed one gets the
   * content of the nearest kept one before it as `previousContent`. Returns how many went.
   */
  removeWhere(doomed: (version: BlockVersion) => boolean): number {
    let removed = 0;
    for (const [label, list] of this.versions) {
      const kept: BlockVersion[] = [];
      let skipped = false;
      for (const version of list) {
        if (doomed(version)) {
          removed++;
          skipped = true;
          continue;
        }
        kept.push(
          skipped
            ? { ...version, previousContent: kept.at(-1)?.content ?? null }
            : version,
        );
        skipped = false;
      }
      if (kept.length > 0) this.versions.set(label, kept);
      else this.versions.delete(label);
    }
    return removed;
  }

  /** Drops every version of a label (a created block deleted): a new block of it starts at 1. */
  forget(label: string): void {
    this.versions.delete(label);
  }

  clear(): void {
    this.versions.clear();
  }
}
