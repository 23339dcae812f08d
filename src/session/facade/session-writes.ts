import { reclaimWithinMessage } from "../context/skills.js";
import type {
  MessageWrite,
  SessionProvider,
  WriteMessagesOptions,
} from "../contracts/provider.js";
import type { SessionMessage } from "../contracts/types.js";
import { encodeWrite, stringifyMessage } from "../messages/message-codec.js";
import type { SessionTree } from "../state/session-tree.js";
import { fitsUtf8 } from "../encoding/utf8.js";
import { inlineDataBytes } from "../messages/attachments.js";
import {
  ArborError,
  ArborTypeError,
  invalidArgument,
} from "../errors/index.js";
import type { SessionRuntime } from "./session-runtime.js";
import { enforceRowSizeLimit } from "../messages/row-size-limit.js";
import { textOf } from "../errors/text-of.js";

/** A message ready for the provider: a per-call object, and its JSON (`JSON.stringify(message)`). */
interface PreparedMessage extends MessageWrite {
  json: string;
}

/**
 * What one append did, reported by the insert itself (`Session.appendMessage()`), so a
 * caller never reads before or after to find out, and two concurrent appends of one id are told
 * apart by the store's own atomic insert: exactly one of them has `inserted: true`.
 */
export interface AppendMessageResult {
  /** `true` when this call stored the message; `false` when the id was already taken. */
  inserted: boolean;
  /** The message as stored: this call's when inserted, else the one that holds the id. */
  message: SessionMessage;
  /**
   * `true` when inserted, or when the message holding the id is what this call would have
   * stored (role, parts and metadata, after the row-size limit and skill reclaim) and, when
   * `parentId` was given, sits under that parent: the same write made again.
   */
  matchesStored: boolean;
}

/**
 * The message writes of one Session: validation, write-time skill reclaim and
 * the row-size limit, the append lock, the token estimate, audit records and the manager hook.
 *
 * Every write of messages goes through the provider's one primitive, `writeMessages`: one entry
 * for an append, many for `appendAll`. Each message is validated and encoded once, here, and the
 * JSON goes to the provider with it (`MessageWrite.json`), which keeps it without checking it
 * again. The parent of an auto-parented append (`parentId` omitted) is the chosen branch's leaf
 * while `switchBranch()` holds (`SessionTree.appendParent`), else resolved by the provider inside
 * its atomic write, never here: another process may append between a lookup here and the
 * insert, and the two messages would then fork instead of chaining. The provider reports the
 * parent it stored, which the estimate and the audit record use.
 */
export class SessionWrites {
  constructor(
    private readonly runtime: SessionRuntime,
    /** The row-size limit, also applied by `importMessage()` (session-import.ts); set by `withRowSizeLimit()`. */
    public maxRowBytes: number | false,
  ) {}

  /** Inserts the message; `true` when a row was inserted, `false` when the id was already taken. */
  async append(
    message: SessionMessage,
    parentId?: string | null,
  ): Promise<boolean> {
    return (await this.insert(message, parentId)).inserted;
  }

  /**
   * Inserts the message and reports what happened (see `AppendMessageResult`). The message that
   * holds a taken id is read only then: an inserted append reads nothing.
   */
  async appendWithResult(
    message: SessionMessage,
    parentId?: string | null,
  ): Promise<AppendMessageResult> {
    const outcome = await this.insert(message, parentId);
    if (outcome.inserted)
      return { inserted: true, message: outcome.stored, matchesStored: true };
    return taken(outcome.tree, outcome.stored, outcome.requested);
  }

  /**
   * `appendWithResult()` with checks made by the write itself (`SessionManager.appendToExisting`).
   * `requireRegistered`: write only if the session has its registry row, checked by the insert
   * (only for a provider that declares `insertChecksRegistry`); `null`, with nothing written, when
   * it has none. `requireParent`: a string `parentId` that is not in the session throws
   * `MESSAGE_NOT_FOUND` and nothing is written, where an append would store the message as a
   * root; checked by the insert when the provider declares `insertChecksParent`, else read first
   * under the append lock.
   */
  async appendChecked(
    message: SessionMessage,
    parentId: string | null | undefined,
    checks: AppendChecks,
  ): Promise<AppendMessageResult | null> {
    const outcome = await this.insert(message, parentId, checks);
    if (outcome.unregistered) return null;
    if (outcome.inserted)
      return { inserted: true, message: outcome.stored, matchesStored: true };
    return taken(outcome.tree, outcome.stored, outcome.requested);
  }

  /** The append itself: validation, the locked insert, audit, hooks and auto-compaction. */
  private async insert(
    message: SessionMessage,
    parentId: string | null | undefined,
    checks: AppendChecks = {},
  ): Promise<{
    inserted: boolean;
    /** The session had no registry row (`options.requireRegistered`): nothing was written. */
    unregistered: boolean;
    stored: SessionMessage;
    requested: string | null | undefined;
    tree: SessionTree;
  }> {
    const json = encodeWrite(message);
    const runtime = this.runtime;
    const parts = await runtime.ready();
    const { provider, tree } = parts;
    if (checks.requireRegistered === true && !checksRegistry(provider)) {
      throw new ArborTypeError(
        "NOT_SUPPORTED",
        "[arbor] This provider's writeMessages does not check the registry (insertChecksRegistry)",
      );
    }
    const prepared = this.prepareForStorage(message, json, provider);
    const requested = requestedParent(message.id, parentId, runtime);
    const estimator = runtime.compaction.estimator;
    let inserted = false;
    let unregistered = false;
    let parentMissing = false;
    let registryTouched = false;
    // A given parent that must exist: the provider's insert checks it, or it is read here first.
    const parentCheck =
      checks.requireParent === true && typeof requested === "string";
    const readsParent = parentCheck && provider.insertChecksParent !== true;
    await runtime.exclusive(provider, async () => {
      if (readsParent && (await provider.getMessage(requested)) === null) {
        parentMissing = true;
        return;
      }
      // The usual append (no chosen branch, a synchronous store) takes no await here: each is a
      // turn of the microtask queue, a share of an append's cost in a Durable Object.
      const pass = tree.pointer.mayHoldBranch
        ? await tree.appendParent(requested)
        : requested;
      const stored = prepared.message;
      const pending = provider.writeMessages(
        [prepared],
        writeOptions(pass, checks, parentCheck && !readsParent),
      );
      const outcome = isThenable(pending) ? await pending : pending;
      unregistered = outcome.registered === false;
      parentMissing =
        parentCheck && outcome.parentFound === false && !unregistered;
      inserted =
        outcome.inserted[0] === true && !unregistered && !parentMissing;
      registryTouched = outcome.registryTouched === true;
      if (!inserted) return;
      if (tree.pointer.mayHoldBranch) await tree.changed();
      const parent = outcome.firstParentId;
      if (typeof requested === "string" && parent === null)
        warnUnknownParent(requested, message.id, runtime);
      estimator.appended(stored, parent);
      runtime.record("append", { message: stored, parentId: parent });
    });
    const outcome = {
      inserted,
      unregistered,
      stored: prepared.message,
      requested,
      tree,
    };
    if (!inserted) {
      // Nothing was written: no hook, no compaction.
      await runtime.emitIdle();
      if (parentMissing)
        throw new ArborError(
          "MESSAGE_NOT_FOUND",
          `[arbor] Parent "${String(requested)}" is not in session "${runtime.plan.sessionId}"; message "${message.id}" was not written`,
        );
      return outcome;
    }
    // Each await below is a turn of the microtask queue, a share of a Durable Object append's
    // cost: none is taken for a hook, listener or auto-compaction that is not there.
    const afterWrite = runtime.afterWrite;
    if (afterWrite)
      await afterWrite(registryTouched ? { registryTouched } : undefined);
    const estimate = runtime.idleHeard ? await runtime.emitIdle() : undefined;
    if (runtime.compaction.threshold !== null)
      await runtime.compaction.afterInsert(runtime.host(parts), estimate);
    return outcome;
  }

  /**
   * Appends `messages` as one chain (docs/behavior/messages-and-tree.md#appending-many): every
   * message is checked before anything is written, then one `writeMessages` call writes them
   * (atomically on the built-in backends). Returns how many rows were inserted (taken ids are
   * skipped). Auto-compaction is checked once, after the batch.
   */
  async appendAll(
    messages: readonly SessionMessage[],
    parentId?: string | null,
  ): Promise<number> {
    // Checked as `unknown` (a JavaScript caller may pass anything): `Array.isArray` would turn
    // the typed array into `any[]`.
    const given: unknown = messages;
    if (!Array.isArray(given)) {
      throw invalidArgument("appendAll() takes an array of messages");
    }
    const jsons = messages.map((message) => encodeWrite(message));
    if (messages.length === 0) return 0;
    const runtime = this.runtime;
    const parts = await runtime.ready();
    const { provider, tree } = parts;
    const prepared = messages.map((message, index) =>
      this.prepareForStorage(message, jsons[index]!, provider),
    );
    const stored = prepared.map((entry) => entry.message);
    const requested = requestedParent(messages[0]!.id, parentId, runtime);
    let count = 0;
    await runtime.exclusive(provider, async () => {
      const first = await tree.appendParent(requested);
      const batch = await provider.writeMessages(
        prepared,
        writeOptions(first, {}, false),
      );
      if (batch.inserted.includes(true)) await tree.changed();
      let parent: string | null = batch.firstParentId;
      if (typeof requested === "string" && parent === null)
        warnUnknownParent(requested, stored[0]!.id, runtime);
      stored.forEach((message, index) => {
        if (batch.inserted[index]) {
          count++;
          runtime.record("append", { message, parentId: parent });
        }
        parent = message.id;
      });
    });
    runtime.compaction.estimator.invalidate();
    if (count > 0) await runtime.afterWrite?.();
    const estimate = await runtime.emitIdle();
    if (count > 0)
      await runtime.compaction.afterInsert(runtime.host(parts), estimate);
    return count;
  }

  async update(message: SessionMessage): Promise<void> {
    const json = encodeWrite(message);
    const runtime = this.runtime;
    const { provider } = await runtime.ready();
    const { message: stored, json: storedJson } = this.prepareForStorage(
      message,
      json,
      provider,
    );
    await runtime.exclusive(provider, async () => {
      const existed = runtime.audit
        ? (await provider.getMessage(stored.id)) !== null
        : false;
      await provider.updateMessage(stored, storedJson);
      if (existed) runtime.record("update", { message: stored });
    });
    runtime.compaction.estimator.invalidate();
    await runtime.afterWrite?.();
    await runtime.emitIdle();
  }

  async delete(ids: readonly string[]): Promise<void> {
    if (!Array.isArray(ids)) {
      throw invalidArgument("deleteMessages() takes an array of ids");
    }
    const runtime = this.runtime;
    const { provider } = await runtime.ready();
    const valid = ids.filter((id): id is string => typeof id === "string");
    if (valid.length > 0) {
      await runtime.exclusive(provider, async () =>
        provider.deleteMessages(valid),
      );
      runtime.record("delete", { ids: valid });
    }
    runtime.compaction.estimator.invalidate();
    await runtime.afterWrite?.();
    await runtime.emitIdle();
  }

  async clear(): Promise<void> {
    const runtime = this.runtime;
    const { provider, tree, skills, prompt } = await runtime.ready();
    await runtime.exclusive(provider, async () => {
      await provider.clearMessages();
      await tree.changed();
    });
    runtime.record("clear", {});
    runtime.compaction.estimator.invalidate();
    skills.clear();
    await prompt.refresh();
    await runtime.afterWrite?.();
    await runtime.emitIdle();
  }

  // --- Internal helpers ---

  /**
   * Write-time skill reclaim, then the row-size limit (docs/behavior/context-blocks.md,
   * docs/behavior/overlays.md). The result is always a new object, so the provider never holds
   * the caller's. Its JSON is the caller's when the message is unchanged, else the stored
   * message's, encoded without a second check: it was made from a valid message.
   */
  private prepareForStorage(
    message: SessionMessage,
    json: string,
    provider: SessionProvider,
  ): PreparedMessage {
    const reclaimed = reclaimWithinMessage(message);
    // Inline file data a store keeps apart never reaches the row (docs/behavior/storage.md#attachments).
    const inline = provider.storesAttachments ? inlineDataBytes(message) : 0;
    const unchanged =
      reclaimed === message &&
      (this.maxRowBytes === false || fitsUtf8(json, this.maxRowBytes + inline));
    if (unchanged) return { message: { ...message }, json };
    const stored =
      this.maxRowBytes === false
        ? reclaimed
        : enforceRowSizeLimit(reclaimed, {
            maxBytes: this.maxRowBytes + inline,
          });
    const copy = stored === message ? { ...message } : stored;
    return { message: copy, json: stringifyMessage(copy) };
  }
}

// --- Internal helpers ---

/**
 * The result of an append whose id was taken: the stored message, and whether it is what the
 * append would have written (docs/behavior/messages-and-tree.md#appending). `parentId` counts
 * only when the caller gave one (`undefined` follows the latest leaf, which has moved since).
 */
async function taken(
  tree: SessionTree,
  attempted: SessionMessage,
  parentId: string | null | undefined,
): Promise<AppendMessageResult> {
  const stored = await tree.provider.getMessage(attempted.id);
  // Deleted between the insert and this read: nothing holds the id any more.
  if (!stored)
    return { inserted: false, message: attempted, matchesStored: false };
  const matchesStored =
    sameBody(stored, attempted) &&
    (parentId === undefined || (await tree.readsUnder(attempted.id, parentId)));
  return { inserted: false, message: stored, matchesStored };
}

/** Role, parts and metadata equal as stored JSON, whatever the key order. */
function sameBody(stored: SessionMessage, attempted: SessionMessage): boolean {
  const body = (message: SessionMessage) =>
    canonicalJson({
      role: message.role,
      parts: message.parts,
      metadata: message.metadata ?? null,
    });
  return body(stored) === body(attempted);
}

/** JSON text with object keys sorted, as a stored row reads back (undefined members dropped). */
function canonicalJson(value: unknown): string {
  return JSON.stringify(
    JSON.parse(JSON.stringify(value) ?? "null"),
    (_, member: unknown) =>
      typeof member === "object" && member !== null && !Array.isArray(member)
        ? Object.fromEntries(
            Object.entries(member).sort(([a], [b]) =>
              a < b ? -1 : a > b ? 1 : 0,
            ),
          )
        : member,
  );
}

/** Whether the provider's write honours `requireRegistered` (it declares `insertChecksRegistry`). */
export function checksRegistry(provider: SessionProvider): boolean {
  return provider.insertChecksRegistry === true;
}

/** What an append asks its write to check (`SessionWrites.appendChecked`). */
export interface AppendChecks {
  /** Write only if the session has its registry row (`insertChecksRegistry`). */
  requireRegistered?: boolean;
  /** A string parent must be in the session (`MESSAGE_NOT_FOUND` otherwise, nothing written). */
  requireParent?: boolean;
}

/** The options of one `writeMessages` call: the first parent, and the checks the insert makes. */
function writeOptions(
  parentId: string | null | undefined,
  checks: AppendChecks,
  requireParent: boolean,
): WriteMessagesOptions {
  const options: WriteMessagesOptions = { parentId };
  if (checks.requireRegistered === true) options.requireRegistered = true;
  if (requireParent) options.requireParent = true;
  return options;
}

function isThenable<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === "function";
}

/** `parentId` as the contract reads it; anything but a string, `null` or `undefined` is a root. */
function requestedParent(
  messageId: string,
  parentId: unknown,
  runtime: SessionRuntime,
): string | null | undefined {
  if (parentId === undefined || parentId === null) return parentId;
  if (typeof parentId === "string") return parentId;
  console.warn(
    `[arbor] Parent id ${describe(parentId)} is not a string, so it is not in session "${runtime.plan.sessionId}"; message "${messageId}" is stored as a root`,
  );
  return null;
}

function warnUnknownParent(
  parentId: string,
  messageId: string,
  runtime: SessionRuntime,
): void {
  console.warn(
    `[arbor] Parent "${parentId}" is not in session "${runtime.plan.sessionId}"; message "${messageId}" is stored as a root`,
  );
}

function describe(value: unknown): string {
  if (typeof value === "object") return Object.prototype.toString.call(value);
  return `${typeof value} ${textOf(value, "undefined")}`;
}
