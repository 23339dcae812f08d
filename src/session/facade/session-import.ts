import { inlineDataBytes } from "../messages/attachments.js";
import type { SessionMessage } from "../contracts/types.js";
import type { ReattachRecord, SessionProvider } from "../contracts/provider.js";
import { encodeWrite, stringifyMessage } from "../messages/message-codec.js";
import { invalidArgument, isArborError } from "../errors/index.js";
import type { SessionRuntime } from "./session-runtime.js";
import type { SessionWrites } from "./session-writes.js";
import { enforceRowSizeLimit } from "../messages/row-size-limit.js";

/** Where and when an imported message was written (docs/behavior/messages-and-tree.md). */
export interface ImportMessageOptions {
  /** Its parent: a message id, or `null` for a root. Required. */
  parentId: string | null;
  /** When it was written: a `Date` or an ISO-8601 string. Required. */
  createdAt: Date | string;
  /**
   * Whether the time is also written into the message's `createdAt` field. Default `true`.
   * `false` stores the message exactly as given and keeps the time on the row only (its insertion
   * time, which search results report); a provider without `importRecords()` has no row time to
   * set, so it still gets the field.
   */
  timeInMessage?: boolean;
  /**
   * Ids of messages of this session stored as roots that belong under this message (a trimmed
   * file's messages whose parent it lacked, docs/formats.md#re-imports): each is moved under it
   * in the same atomic write, when it is still a root and the move makes no cycle; the others are
   * left where they are. Only when the message is inserted, and only over a provider that
   * declares `importReattaches` (every built-in backend); elsewhere nothing moves.
   */
  reattach?: readonly string[];
}

/** What `upsertMessage()` did. */
export type UpsertOutcome = "inserted" | "updated";

/**
 * Writes a message as it was: explicit parent and time, idempotent by id, no auto-compaction.
 * The provider's `importRecords()` keeps the time as the row's insertion time, and the message's
 * `createdAt` field carries it too unless `timeInMessage: false`; without `importRecords()` the
 * message is appended and its `createdAt` field carries the time. Returns `false`, writing
 * nothing, when the id is already in the session.
 */
export async function importMessage(
  runtime: SessionRuntime,
  maxRowBytes: number | false,
  message: SessionMessage,
  options: ImportMessageOptions,
): Promise<boolean> {
  encodeWrite(message);
  const { parentId, createdAt, timeInMessage, reattach } =
    checkImportOptions(options);
  const { provider, tree } = await runtime.ready();
  // As on append: inline file data a store keeps apart never reaches the row.
  const inline = provider.storesAttachments ? inlineDataBytes(message) : 0;
  const stamped =
    timeInMessage || !provider.importRecords
      ? { ...message, createdAt: new Date(createdAt) }
      : { ...message };
  const stored = limitRow(
    stamped,
    maxRowBytes === false ? false : maxRowBytes + inline,
  );
  let parent: string | null = null;
  const inserted = await runtime.exclusive(provider, async () => {
    if ((await provider.getMessage(stored.id)) !== null) return false;
    if (parentId !== null && (await provider.getMessage(parentId)) !== null)
      parent = parentId;
    else if (parentId !== null) warnUnknownParent(runtime, parentId, stored.id);
    if (!provider.importRecords) {
      const written = await provider.writeMessages(
        [{ message: stored, json: stringifyMessage(stored) }],
        { parentId: parent },
      );
      const appended = written.inserted[0] === true;
      // An insert ends the chosen branch, as on append.
      if (appended) await tree.changed();
      return appended;
    }
    const moves =
      provider.importReattaches === true
        ? await reattachable(provider, reattach, stored.id, parent)
        : [];
    try {
      await provider.importRecords({
        messages: [{ message: stored, parentId: parent, createdAt }],
        compactions: [],
        ...(moves.length > 0 ? { reattach: moves } : {}),
      });
      return true;
    } catch (error) {
      // Another process stored the id between the check and the write: the first write wins.
      if (isArborError(error) && error.code === "MESSAGE_EXISTS") return false;
      throw error;
    }
  });
  if (!inserted) return false;
  runtime.compaction.estimator.invalidate();
  runtime.record("import", { message: stored, parentId: parent, createdAt });
  await runtime.afterWrite?.();
  await runtime.emitIdle();
  return true;
}

/** Appends the message when its id is absent, else replaces its stored content. */
export async function upsertMessage(
  writes: SessionWrites,
  runtime: SessionRuntime,
  message: SessionMessage,
  parentId: string | null | undefined,
): Promise<UpsertOutcome> {
  encodeWrite(message);
  const { provider } = await runtime.ready();
  if ((await provider.getMessage(message.id)) === null) {
    if (await writes.append(message, parentId)) return "inserted";
  }
  // Present, or stored by a concurrent writer since the lookup: update it.
  await writes.update(message);
  return "updated";
}

// --- Internal helpers ---

/**
 * The moves of `reattach` that keep the tree a tree: a root the new message would descend from
 * (the root of its parent's path) cannot also go under it.
 */
async function reattachable(
  provider: SessionProvider,
  ids: readonly string[],
  messageId: string,
  parentId: string | null,
): Promise<ReattachRecord[]> {
  const wanted = ids.filter((id) => id !== messageId);
  if (wanted.length === 0) return [];
  const ancestors =
    parentId === null ? null : await pathIds(provider, parentId);
  return [...new Set(wanted)]
    .filter((id) => !ancestors?.has(id))
    .map((id) => ({ id, parentId: messageId }));
}

/** The ids on the stored path to `leafId`, from the cheapest read the provider has. */
async function pathIds(
  provider: SessionProvider,
  leafId: string,
): Promise<ReadonlySet<string>> {
  if (provider.getPathIdSet) return provider.getPathIdSet(leafId);
  if (provider.getPathIds)
    return new Set(
      (await provider.getPathIds(leafId)).map((entry) => entry.id),
    );
  return new Set(
    (await provider.getHistory(leafId)).map((message) => message.id),
  );
}

function checkImportOptions(options: unknown): {
  parentId: string | null;
  createdAt: string;
  timeInMessage: boolean;
  reattach: readonly string[];
} {
  if (typeof options !== "object" || options === null)
    invalid("needs `{ parentId, createdAt }`");
  const { parentId, createdAt, timeInMessage, reattach } = options as Record<
    string,
    unknown
  >;
  if (timeInMessage !== undefined && typeof timeInMessage !== "boolean")
    invalid("`timeInMessage` must be a boolean");
  if (
    reattach !== undefined &&
    (!Array.isArray(reattach) ||
      !reattach.every((id) => typeof id === "string" && id !== ""))
  )
    invalid("`reattach` must be an array of message ids");
  if (parentId !== null && (typeof parentId !== "string" || parentId === ""))
    invalid("`parentId` must be a message id or null");
  const time =
    createdAt instanceof Date
      ? createdAt.getTime()
      : typeof createdAt === "string"
        ? Date.parse(createdAt)
        : Number.NaN;
  if (Number.isNaN(time))
    invalid("`createdAt` must be a valid Date or ISO-8601 string");
  return {
    parentId,
    createdAt: new Date(time).toISOString(),
    timeInMessage: timeInMessage ?? true,
    reattach: (reattach as readonly string[] | undefined) ?? [],
  };
}

function limitRow(
  message: SessionMessage,
  maxRowBytes: number | false,
): SessionMessage {
  if (maxRowBytes === false) return message;
  return enforceRowSizeLimit(message, { maxBytes: maxRowBytes });
}

function warnUnknownParent(
  runtime: SessionRuntime,
  parentId: string,
  messageId: string,
): void {
  console.warn(
    `[arbor] Parent "${parentId}" is not in session "${runtime.plan.sessionId}"; imported message "${messageId}" is stored as a root`,
  );
}

function invalid(problem: string): never {
  throw invalidArgument(`importMessage(): ${problem}`);
}
