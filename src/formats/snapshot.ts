import type { SessionSnapshot } from "../session/contracts/session-info.js";
import type { SessionMessage } from "../session/contracts/types.js";
import { isArborError } from "../session/errors/index.js";
import { assertSnapshot } from "../session/snapshot/snapshot.js";
import { asRecord, invalidImport } from "./import-error.js";
import { parseJsonDocument } from "./json-text.js";
import { buildTree, checkCompactions } from "./tree.js";
import type { ImportSource, ParsedConversation } from "./types.js";

/** The snapshot JSON of a session (`manager.exportSession()`), pretty-printed. */
export function toSnapshotJson(snapshot: SessionSnapshot): string {
  return `${JSON.stringify(snapshot, null, 2)}\n`;
}

/** Reads snapshot JSON: one snapshot, or an array of them. */
export function parseSnapshots(
  text: string,
  fileName?: string,
): ParsedConversation[] {
  const value = parseJsonDocument(text);
  const list = Array.isArray(value) ? value : [value];
  return list.map((item, index) =>
    checkSnapshot(
      item,
      Array.isArray(value) ? `snapshot ${index + 1}` : null,
      fileName,
    ),
  );
}

/** Checks a snapshot as every import must (tree, messages, overlays) and wraps it. */
export function checkSnapshot(
  value: unknown,
  where: string | null,
  fileName?: string,
): ParsedConversation {
  try {
    assertSnapshot(value);
  } catch (error) {
    if (isArborError(error))
      throw invalidImport(
        where,
        error.message.replace(/^\[arbor\] /, ""),
        error,
      );
    throw error;
  }
  const prefix = where ? `${where} ` : "";
  const { messages } = buildTree(
    value.messages.map((record, index) => {
      const entry = (asRecord(record) ?? {}) as Partial<SnapshotRecord>;
      const message = asRecord(entry.message) as SessionMessage | null;
      return {
        id: typeof message?.id === "string" ? message.id : "",
        parentId: entry.parentId ?? null,
        createdAt: String(entry.createdAt),
        message: message ?? ({} as SessionMessage),
        where: `${prefix}message ${index + 1}`,
      };
    }),
  );
  checkCompactions(
    value.compactions,
    messages,
    (index) => `${prefix}compaction ${index + 1}`,
  );
  const snapshot: SessionSnapshot = { ...value, messages };
  const activeLeafId = snapshot.activeLeafId ?? null;
  if (
    activeLeafId !== null &&
    !messages.some((record) => record.message.id === activeLeafId)
  )
    throw invalidImport(
      where,
      `the active leaf "${String(activeLeafId)}" is not a message of the snapshot`,
    );
  return {
    snapshot,
    activeLeafId,
    title: snapshot.info?.name ?? fileName ?? "Imported session",
    format: "snapshot",
    source: arborSource(snapshot),
  };
}

/**
 * The source of an Arbor file: the one its session was imported from (its `import.*` metadata),
 * else the Arbor session itself.
 */
export function arborSource(snapshot: SessionSnapshot): ImportSource {
  const metadata = snapshot.metadata ?? {};
  const format = metadata["import.format"];
  const id = metadata["import.sourceId"];
  if (format && id)
    return {
      format,
      id,
      ...(metadata["import.fileName"]
        ? { fileName: metadata["import.fileName"] }
        : {}),
    };
  return { format: "arbor", id: snapshot.sessionId };
}

// --- Internal helpers ---

type SnapshotRecord = SessionSnapshot["messages"][number];
