import type { SessionSnapshot } from "../session/contracts/session-info.js";
import type {
  SessionMessage,
  StoredCompaction,
} from "../session/contracts/types.js";
import {
  assertMessageRole,
  assertValidMessage,
} from "../session/messages/message-codec.js";
import { invalidImport } from "./import-error.js";
import { injectedContextKind, isSlashCommand } from "./injected-context.js";
import { markMissingParent } from "./missing-parent.js";
import type { ConversationTimes, ImportWarning } from "./types.js";

/** One entry of a source tree. A `null` message is skipped and its children re-attached. */
export interface SourceNode {
  id: string;
  parentId: string | null;
  /** ISO-8601 (checked here). */
  createdAt: string;
  message: SessionMessage | null;
  /** Names the entry in errors: `line 7`, `conversation "Trip" node "abc"`. */
  where: string;
}

/** The checked tree: kept messages, parents before children, and a resolver for skipped ids. */
export interface BuiltTree {
  messages: SessionSnapshot["messages"];
  /** The id itself when kept, else its nearest kept ancestor (`null` for none or unknown ids). */
  resolve(id: string | null): string | null;
  /** What `lenient` repaired: each entry whose parent is not in the file. */
  warnings: ImportWarning[];
}

/** How `buildTree()` treats an entry whose parent is missing. */
export interface TreeOptions {
  /** Attach it to the root and warn, instead of refusing the file (a trimmed fragment). */
  lenient?: boolean;
}

/**
 * Checks a source tree and turns it into snapshot messages: ids unique, every parent present, no
 * cycle, every kept message valid as Session writes it. Input order is kept where it already puts
 * parents first; a child listed before its parent moves after it.
 */
export function buildTree(
  sourceNodes: readonly SourceNode[],
  options: TreeOptions = {},
): BuiltTree {
  const ids = new Set<string>();
  for (const node of sourceNodes) {
    if (typeof node.id !== "string" || node.id === "")
      throw invalidImport(node.where, "an entry needs a non-empty string id");
    if (ids.has(node.id))
      throw invalidImport(node.where, `the id "${node.id}" appears twice`);
    ids.add(node.id);
  }
  const warnings: ImportWarning[] = [];
  /** By entry id: the parent the file names but lacks (`lenient`). */
  const orphaned = new Map<string, string>();
  const nodes = sourceNodes.map((node) => {
    if (node.parentId === null || ids.has(node.parentId)) return node;
    const problem = `the parent "${node.parentId}" of "${node.id}" is not in the file`;
    if (!options.lenient)
      throw invalidImport(
        node.where,
        `${problem} (a trimmed file? import it with lenient to attach such entries to the root)`,
      );
    warnings.push({
      where: node.where,
      problem: `${problem}; attached to the root`,
    });
    orphaned.set(node.id, node.parentId);
    return { ...node, parentId: null };
  });
  const byId = new Map(nodes.map((node) => [node.id, node]));
  for (const node of nodes) {
    if (Number.isNaN(Date.parse(node.createdAt)))
      throw invalidImport(
        node.where,
        `invalid time ${JSON.stringify(node.createdAt)}`,
      );
    if (node.message) checkMessage(node);
  }
  const ordered = parentsFirst(nodes, byId);
  const kept = new Map<string, string | null>();
  /** By entry id: the missing parent that makes it a root (through skipped entries too). */
  const lost = new Map<string, string>();
  const messages: SessionSnapshot["messages"] = [];
  for (const node of ordered) {
    const parent = node.parentId === null ? null : kept.get(node.parentId)!;
    const lostParent =
      orphaned.get(node.id) ??
      (node.parentId !== null && parent === null
        ? lost.get(node.parentId)
        : undefined);
    if (lostParent !== undefined) lost.set(node.id, lostParent);
    if (!node.message) {
      kept.set(node.id, parent);
      continue;
    }
    kept.set(node.id, node.id);
    messages.push({
      // Marked, so that the import of the whole file puts it under its parent.
      message:
        lostParent === undefined
          ? node.message
          : markMissingParent(node.message, lostParent),
      parentId: parent,
      createdAt: new Date(node.createdAt).toISOString(),
    });
  }
  return {
    messages,
    resolve: (id) => (id === null ? null : (kept.get(id) ?? null)),
    warnings,
  };
}

/** Checks overlays against the kept messages: both ends present, ids unique. */
export function checkCompactions(
  compactions: readonly StoredCompaction[],
  messages: SessionSnapshot["messages"],
  whereOf: (index: number) => string,
): void {
  const ids = new Set(messages.map((record) => record.message.id));
  const seen = new Set<string>();
  compactions.forEach((compaction, index) => {
    const where = whereOf(index);
    if (
      typeof compaction.id !== "string" ||
      typeof compaction.summary !== "string" ||
      compaction.summary === ""
    )
      throw invalidImport(
        where,
        "a compaction needs an `id` and a non-empty `summary`",
      );
    if (seen.has(compaction.id))
      throw invalidImport(
        where,
        `the compaction id "${compaction.id}" appears twice`,
      );
    seen.add(compaction.id);
    for (const end of [compaction.fromMessageId, compaction.toMessageId]) {
      if (!ids.has(end))
        throw invalidImport(
          where,
          `the compaction covers "${String(end)}", which is not a message of the file`,
        );
    }
    if (Number.isNaN(Date.parse(compaction.createdAt)))
      throw invalidImport(where, "a compaction needs an ISO-8601 `createdAt`");
  });
}

/**
 * A conversation's times: from the earlier of the stated start and its first message to the
 * later of the stated update and its last message (a Pi session branched off later states a
 * start after its messages). `undefined` when there is neither.
 */
export function conversationTimes(
  messages: SessionSnapshot["messages"],
  stated: {
    createdAt?: string | undefined;
    updatedAt?: string | undefined;
  } = {},
): ConversationTimes | undefined {
  const times = [
    ...messages.map((record) => record.createdAt),
    ...[stated.createdAt, stated.updatedAt].filter(
      (time): time is string => time !== undefined,
    ),
  ].sort();
  const createdAt = times[0];
  const updatedAt = times.at(-1);
  return createdAt === undefined || updatedAt === undefined
    ? undefined
    : { createdAt, updatedAt };
}

/**
 * The first words of the first real prompt: a fallback title. Injected context (messages marked
 * with `metadata.injectedContext`) never names a conversation; a slash command (`/init`) does
 * only when no prompt follows it, and the fallback (the file name) only when there is neither.
 */
export function firstUserWords(
  messages: SessionSnapshot["messages"],
  fallback: string,
  clean: (text: string) => string = (text) => text,
): string {
  let command: string | null = null;
  for (const { message } of messages) {
    const kind = injectedContextKind(message);
    if (message.role !== "user" || (kind !== null && kind !== "slash-command"))
      continue;
    const text = message.parts
      .map((part) =>
        part.type === "text" && typeof part.text === "string"
          ? clean(part.text)
          : "",
      )
      .join(" ")
      .replace(/\s+/g, " ")
      .trim();
    if (!text) continue;
    if (isSlashCommand(text)) {
      command ??= text;
      continue;
    }
    // A command's wrapper or expansion is the tool's text, not a prompt.
    if (kind === null) return words(text);
  }
  return command === null ? fallback : words(command);
}

// --- Internal helpers ---

function words(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function checkMessage(node: SourceNode): void {
  try {
    assertValidMessage(node.message);
    assertMessageRole(node.message);
  } catch (error) {
    throw invalidImport(
      node.where,
      (error as Error).message.replace(/^\[arbor\] /, ""),
      error,
    );
  }
  if (node.message.id !== node.id)
    throw invalidImport(
      node.where,
      `the message id "${node.message.id}" differs from the entry id "${node.id}"`,
    );
}

/** Parents before children, input order otherwise; throws on a cycle. Iterative: long chains are fine. */
function parentsFirst(
  nodes: readonly SourceNode[],
  byId: ReadonlyMap<string, SourceNode>,
): SourceNode[] {
  const placed = new Set<string>();
  const ordered: SourceNode[] = [];
  for (const node of nodes) {
    const chain: SourceNode[] = [];
    const onChain = new Set<string>();
    let current: SourceNode | undefined = node;
    while (current && !placed.has(current.id)) {
      if (onChain.has(current.id))
        throw invalidImport(
          current.where,
          `"${current.id}" is its own ancestor (a cycle)`,
        );
      onChain.add(current.id);
      chain.push(current);
      current =
        current.parentId === null ? undefined : byId.get(current.parentId);
    }
    for (let index = chain.length - 1; index >= 0; index--) {
      placed.add(chain[index]!.id);
      ordered.push(chain[index]!);
    }
  }
  return ordered;
}
