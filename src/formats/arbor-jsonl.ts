import type { SessionSnapshot } from "../session/contracts/session-info.js";
import type {
  SessionMessage,
  StoredCompaction,
} from "../session/contracts/types.js";
import { asRecord, invalidImport } from "./import-error.js";
import { parseJsonl, type JsonlLine } from "./json-text.js";
import {
  buildTree,
  checkCompactions,
  type SourceNode,
  type TreeOptions,
} from "./tree.js";
import { arborSource } from "./snapshot.js";
import type { ParsedConversation } from "./types.js";
import { textOf } from "../session/errors/text-of.js";

/** The `format` of a tree JSONL header line. */
export const ARBOR_JSONL_FORMAT = "arbor.jsonl";

/** Header fields copied to and from the snapshot as they are. */
const HEADER_FIELDS = [
  "info",
  "ownerId",
  "metadata",
  "systemPrompt",
  "createdBlocks",
] as const;

/**
 * Writes a session as tree JSONL (docs/formats.md): a header line, one line per message in
 * insertion order, the overlays, then one line per block. Reads back losslessly.
 */
export function toArborJsonl(
  snapshot: SessionSnapshot,
  activeLeafId: string | null = snapshot.activeLeafId ?? null,
): string {
  const header: Record<string, unknown> = {
    type: "session",
    format: ARBOR_JSONL_FORMAT,
    version: 1,
    sessionId: snapshot.sessionId,
    name: snapshot.info?.name ?? null,
    exportedAt: snapshot.exportedAt,
    activeLeafId,
  };
  for (const field of HEADER_FIELDS)
    if (snapshot[field] !== undefined) header[field] = snapshot[field];
  const lines = [JSON.stringify(header)];
  for (const { message, parentId, createdAt } of snapshot.messages)
    lines.push(
      JSON.stringify({
        type: "message",
        id: message.id,
        parentId,
        createdAt,
        message,
      }),
    );
  for (const compaction of snapshot.compactions)
    lines.push(JSON.stringify({ type: "compaction", ...compaction }));
  for (const [label, content] of Object.entries(snapshot.contextBlocks ?? {}))
    lines.push(JSON.stringify({ type: "block", label, content }));
  return `${lines.join("\n")}\n`;
}

/** Reads tree JSONL. Several `block` lines for one label are that block's versions, in order. */
export function parseArborJsonl(
  text: string,
  fileName?: string,
  options: TreeOptions = {},
): ParsedConversation {
  const [first, ...rest] = parseJsonl(text);
  const header = readHeader(first!);
  const nodes: SourceNode[] = [];
  const compactions: StoredCompaction[] = [];
  const compactionLines: number[] = [];
  const blockVersions: Record<string, string[]> = {};
  for (const { line, value } of rest) {
    const where = `line ${line}`;
    if (value.type === "message") nodes.push(readMessage(value, where));
    else if (value.type === "compaction") {
      compactions.push(readCompaction(value, where));
      compactionLines.push(line);
    } else if (value.type === "block") {
      if (
        typeof value.label !== "string" ||
        value.label === "" ||
        typeof value.content !== "string"
      )
        throw invalidImport(
          where,
          "a block line needs a string `label` and `content`",
        );
      (blockVersions[value.label] ??= []).push(value.content);
    } else
      throw invalidImport(
        where,
        `unknown line type ${JSON.stringify(value.type)}`,
      );
  }
  const { messages, warnings } = buildTree(nodes, options);
  checkCompactions(
    compactions,
    messages,
    (index) => `line ${compactionLines[index]}`,
  );
  const activeLeafId = header.activeLeafId;
  if (
    activeLeafId !== null &&
    !messages.some((record) => record.message.id === activeLeafId)
  )
    throw invalidImport(
      `line ${first!.line}`,
      `the active leaf "${activeLeafId}" is not a message of the file`,
    );
  const snapshot: SessionSnapshot = {
    format: "arbor.session",
    version: 1,
    sessionId: header.sessionId,
    exportedAt: header.exportedAt,
    messages,
    compactions,
    contextBlocks: Object.fromEntries(
      Object.entries(blockVersions).map(([label, versions]) => [
        label,
        versions.at(-1)!,
      ]),
    ),
  };
  for (const field of HEADER_FIELDS)
    if (header.value[field] !== undefined)
      Object.assign(snapshot, { [field]: header.value[field] });
  if (activeLeafId !== null) snapshot.activeLeafId = activeLeafId;
  const multi = Object.entries(blockVersions).filter(
    ([, versions]) => versions.length > 1,
  );
  return {
    snapshot,
    activeLeafId,
    title: header.name ?? fileName ?? "Imported session",
    format: "arbor-jsonl",
    source: arborSource(snapshot),
    warnings,
    ...(multi.length > 0 ? { blockVersions: Object.fromEntries(multi) } : {}),
  };
}

// --- Internal helpers ---

interface Header {
  value: Record<string, unknown>;
  sessionId: string;
  exportedAt: string;
  name: string | null;
  activeLeafId: string | null;
}

function readHeader({ line, value }: JsonlLine): Header {
  const where = `line ${line}`;
  if (value.type !== "session" || value.format !== ARBOR_JSONL_FORMAT)
    throw invalidImport(
      where,
      'expected the header {"type":"session","format":"arbor.jsonl",…}',
    );
  if (value.version !== 1)
    throw invalidImport(
      where,
      `unsupported version ${JSON.stringify(value.version)}; this Arbor reads version 1`,
    );
  if (typeof value.sessionId !== "string" || value.sessionId === "")
    throw invalidImport(where, "the header needs a `sessionId`");
  const activeLeafId = value.activeLeafId ?? null;
  if (activeLeafId !== null && typeof activeLeafId !== "string")
    throw invalidImport(where, "`activeLeafId` must be a message id or null");
  return {
    value,
    sessionId: value.sessionId,
    exportedAt:
      typeof value.exportedAt === "string"
        ? value.exportedAt
        : new Date().toISOString(),
    name: typeof value.name === "string" ? value.name : null,
    activeLeafId,
  };
}

/** A compaction line's fields; `checkCompactions` then checks them against the file's messages. */
function readCompaction(
  value: Record<string, unknown>,
  where: string,
): StoredCompaction {
  const { id, summary, fromMessageId, toMessageId, createdAt, meta } = value;
  if (typeof id !== "string" || typeof summary !== "string" || summary === "")
    throw invalidImport(
      where,
      "a compaction needs an `id` and a non-empty `summary`",
    );
  if (typeof fromMessageId !== "string" || typeof toMessageId !== "string")
    throw invalidImport(
      where,
      "a compaction needs the message ids `fromMessageId` and `toMessageId`",
    );
  if (typeof createdAt !== "string")
    throw invalidImport(where, "a compaction needs an ISO-8601 `createdAt`");
  const metaRecord = asRecord(meta);
  if (meta !== undefined && !metaRecord)
    throw invalidImport(where, "a compaction's `meta` must be an object");
  return {
    id,
    summary,
    fromMessageId,
    toMessageId,
    createdAt,
    ...(metaRecord ? { meta: metaRecord } : {}),
  };
}

function readMessage(
  value: Record<string, unknown>,
  where: string,
): SourceNode {
  const message = asRecord(value.message);
  if (!message)
    throw invalidImport(where, "a message line needs a `message` object");
  if (value.parentId !== null && typeof value.parentId !== "string")
    throw invalidImport(where, "`parentId` must be a message id or null");
  if (typeof value.createdAt !== "string")
    throw invalidImport(where, "a message line needs an ISO-8601 `createdAt`");
  return {
    id: typeof value.id === "string" ? value.id : textOf(message.id),
    parentId: value.parentId,
    createdAt: value.createdAt,
    message: message as SessionMessage,
    where,
  };
}
