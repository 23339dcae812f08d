// The message tree of a session document: insertion order, the latest leaf, paths.
import type { SessionMessage } from "arbor-memory/session";
import type { RowDoc, SessionDoc } from "./kv-documents.js";

/** The rows in insertion order. */
export function orderedRows(doc: SessionDoc): Array<[string, RowDoc]> {
  return Object.entries(doc.rows).sort(([, a], [, b]) => a.seq - b.seq);
}

/** The most recently inserted row that has no child, or `null` for an empty session. */
export function latestLeafId(doc: SessionDoc): string | null {
  const rows = orderedRows(doc);
  const parents = new Set(rows.map(([, row]) => row.parentId));
  for (let index = rows.length - 1; index >= 0; index--) {
    const id = rows[index]![0];
    if (!parents.has(id)) return id;
  }
  return null;
}

/** The ids root → leaf (the latest leaf for null/undefined/""); `[]` for an unknown id. */
export function pathIds(doc: SessionDoc, leafId?: string | null): string[] {
  const path: string[] = [];
  const seen = new Set<string>();
  let id = leafId || latestLeafId(doc);
  // A cycle must not loop: a visited id ends the walk.
  while (id !== null && doc.rows[id] && !seen.has(id)) {
    seen.add(id);
    path.push(id);
    id = doc.rows[id]!.parentId;
  }
  return path.reverse();
}

/** A stored message, with a valid ISO `createdAt` revived to a `Date`. */
export function reviveMessage(json: string): SessionMessage {
  const message = JSON.parse(json) as SessionMessage;
  const createdAt = message.createdAt as unknown;
  if (typeof createdAt === "string" && !Number.isNaN(Date.parse(createdAt)))
    message.createdAt = new Date(createdAt);
  return message;
}
