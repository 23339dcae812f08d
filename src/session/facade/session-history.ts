import { hasCapability } from "../contracts/provider-capabilities.js";
import type { PathEntry } from "../contracts/provider.js";
import type { SessionTree } from "../state/session-tree.js";
import type { MaybePromise, SessionMessage } from "../contracts/types.js";
import { summaryMessage } from "../tree/apply-compactions.js";
import {
  historyWindows,
  type HistoryWindow,
  type WindowBounds,
} from "../tree/history-windows.js";
import { utf8Length } from "../encoding/utf8.js";
import { invalidArgument } from "../errors/index.js";
import { textOf } from "../errors/text-of.js";

/** Default most messages per streamed batch. */
export const DEFAULT_HISTORY_BATCH_SIZE = 50;
/** Default most bytes (UTF-8 of the stored JSON) per streamed batch: 4 MiB. */
export const DEFAULT_HISTORY_BATCH_BYTES = 4 * 1024 * 1024;

/** Options of `session.history()` and `session.historyBatches()` (docs/behavior/history.md). */
export interface HistoryStreamOptions {
  /** The leaf whose path is streamed; default the active leaf, as `getHistory()` reads it. */
  leafId?: string | null;
  /** Leaf → root instead of root → leaf; stopping early then costs only what was read. */
  newestFirst?: boolean;
  /** Checked before each window is read: aborting rejects the iteration with the signal's reason. */
  signal?: AbortSignal;
  /** Most messages per window (and per batch). Default 50. */
  batchSize?: number;
  /** Most UTF-8 bytes of stored JSON per window; a larger message comes alone. Default 4 MiB. */
  maxBatchBytes?: number;
}

/**
 * Checks the options at the call, before any read, and returns the batches as a lazy iterable:
 * nothing is read until the first `next()`.
 */
export function streamHistoryBatches(
  ready: () => Promise<{ tree: SessionTree }>,
  options: HistoryStreamOptions | undefined,
): AsyncIterable<SessionMessage[]> {
  const checked = checkOptions(options);
  return {
    [Symbol.asyncIterator]: () => readBatches(ready, checked),
  };
}

/** The same stream, one message at a time. */
export function streamHistory(
  ready: () => Promise<{ tree: SessionTree }>,
  options: HistoryStreamOptions | undefined,
): AsyncIterable<SessionMessage> {
  const batches = streamHistoryBatches(ready, options);
  return {
    async *[Symbol.asyncIterator]() {
      for await (const batch of batches) yield* batch;
    },
  };
}

// --- Internal helpers ---

interface CheckedOptions extends WindowBounds {
  leafId: string | undefined;
  signal: AbortSignal | undefined;
}

async function* readBatches(
  ready: () => Promise<{ tree: SessionTree }>,
  options: CheckedOptions,
): AsyncGenerator<SessionMessage[]> {
  const { signal } = options;
  signal?.throwIfAborted();
  const { tree } = await ready();
  const { provider } = tree;
  if (hasCapability(provider, "streamedHistory")) {
    const fetch = provider.getMessagesByIds.bind(provider);
    const [path, overlays] = await Promise.all([
      tree.pathIds(options.leafId),
      provider.getCompactions(),
    ]);
    const windows = historyWindows(path ?? [], overlays, options);
    // The batch passes through `next` and no local of this generator: a suspended generator
    // keeps every local of its frame alive, so a batch held in one stayed in memory until the
    // consumer asked for the following one. A server streaming to hundreds of clients in turn
    // then held one window per client between its turns, long enough for the garbage collector
    // to copy and promote every window (docs/server.md#large-answers).
    const next: { batch?: SessionMessage[] } = {};
    while (await readWindow(windows, fetch, signal, next)) yield take(next);
    return;
  }
  // A provider without the window primitives: its whole history, handed out in the same batches.
  const messages = await tree.history(options.leafId);
  const entries: PathEntry[] = messages.map((message, index) => ({
    id: String(index),
    bytes: utf8Length(JSON.stringify(message)),
  }));
  for (const window of historyWindows(entries, [], options)) {
    signal?.throwIfAborted();
    yield window.rowIds.map((index) => messages[Number(index)]!);
  }
}

/**
 * Reads the next window with a message into `into.batch`; false when there is none left. Rows
 * deleted since the path was read, or unreadable, are skipped as getHistory() skips them.
 */
async function readWindow(
  windows: Iterator<HistoryWindow>,
  fetch: (ids: readonly string[]) => MaybePromise<Array<SessionMessage | null>>,
  signal: AbortSignal | undefined,
  into: { batch?: SessionMessage[] },
): Promise<boolean> {
  for (;;) {
    const step = windows.next();
    if (step.done) return false;
    const window = step.value;
    signal?.throwIfAborted();
    const rows = window.rowIds.length > 0 ? await fetch(window.rowIds) : [];
    let next = 0;
    const batch: SessionMessage[] = [];
    for (const span of window.spans) {
      const message =
        span.kind === "summary" ? summaryMessage(span.overlay) : rows[next++];
      if (message) batch.push(message);
    }
    if (batch.length > 0) {
      into.batch = batch;
      return true;
    }
  }
}

/** The batch `readWindow` read, which `into` then no longer holds. */
function take(into: { batch?: SessionMessage[] }): SessionMessage[] {
  const batch = into.batch!;
  into.batch = undefined;
  return batch;
}

function checkOptions(
  options: HistoryStreamOptions | undefined,
): CheckedOptions {
  if (
    options !== undefined &&
    (typeof options !== "object" || options === null)
  )
    invalid("options must be an object");
  const { leafId, newestFirst, signal, batchSize, maxBatchBytes } =
    options ?? {};
  if (leafId !== undefined && leafId !== null && typeof leafId !== "string")
    invalid("`leafId` must be a string, null or undefined");
  if (newestFirst !== undefined && typeof newestFirst !== "boolean")
    invalid("`newestFirst` must be a boolean");
  if (
    signal !== undefined &&
    (typeof signal !== "object" ||
      signal === null ||
      typeof signal.throwIfAborted !== "function")
  )
    invalid("`signal` must be an AbortSignal");
  return {
    leafId: leafId || undefined,
    newestFirst: newestFirst ?? false,
    signal,
    batchSize: positive("batchSize", batchSize, DEFAULT_HISTORY_BATCH_SIZE),
    maxBatchBytes: positive(
      "maxBatchBytes",
      maxBatchBytes,
      DEFAULT_HISTORY_BATCH_BYTES,
    ),
  };
}

function positive(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1)
    invalid(
      `\`${name}\` must be a positive integer, got ${textOf(value, "null")}`,
    );
  return value;
}

function invalid(problem: string): never {
  throw invalidArgument(`history(): ${problem}`);
}
