// The documents of the key-value store and their keys.
import type { SessionInfo, StoredCompaction } from "arbor-memory/session";

/** One stored message: its JSON, its parent, its place in insertion order, when it was stored. */
export interface RowDoc {
  json: string;
  parentId: string | null;
  seq: number;
  /** ISO-8601 UTC with milliseconds. */
  createdAt: string;
}

/** A session's messages and overlays (`session:<id>`). */
export interface SessionDoc {
  rows: Record<string, RowDoc>;
  overlays: StoredCompaction[];
}

/** A registry row (`registry:<id>`). */
export type RegistryDoc = SessionInfo;

export const sessionKey = (sessionId: string) => `session:${sessionId}`;
export const configKey = (sessionId: string) => `config:${sessionId}`;
export const registryKey = (sessionId: string) => `registry:${sessionId}`;
