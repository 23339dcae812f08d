/**
 * One stored message row: the JSON text is what is stored, so callers cannot mutate it. Apart
 * from the store (memory-store.ts, which re-exports it) so the text index can read rows without
 * importing the store that holds it.
 */
export interface MemoryRow {
  seq: number;
  id: string;
  parentId: string | null;
  role: string;
  json: string;
  createdAt: string;
  /** The searchable text, and the `content` of hits (docs/behavior/search.md). */
  text: string;
  /**
   * What is indexed when it differs from `text`: the text with tool outputs, when the store
   * indexes them (`MemoryStore.toolOutputs`).
   */
  indexed?: string | undefined;
}
