import type { SessionMessage } from "../../session/contracts/types.js";
import type { Session } from "../../session/facade/session.js";
import { toWire } from "../context.js";
import { isStorageFault } from "../reliability/storage-faults.js";
import { windowPriority, type ReadGate } from "./read-gate.js";
import { STREAMED_PIECE_BYTES, streamedJson } from "./streamed-json.js";

/** Most messages one piece of a streamed history holds. */
const PIECE_MESSAGES = 50;

const encoder = new TextEncoder();
/** What the answer's text begins with, before its first window's messages. */
const OPENING = '{"messages":[';

/**
 * One window: a path within it is answered whole, read in one statement where the store can
 * (`activeHistoryWithin`); a longer one streams.
 */
export const HISTORY_WINDOW = {
  messages: PIECE_MESSAGES,
  bytes: STREAMED_PIECE_BYTES,
} as const;

/** How a window read that met a storage fault is tried again (docs/server.md#large-answers). */
export interface WindowRetry {
  /** Further tries after the first; 0 never retries. */
  retries: number;
  /** Wait before the first retry, doubled before each next one. */
  delayMs: number;
}

/**
 * Three more tries over 100 + 200 + 400 ms: long enough for a pool to replace connections a
 * database restart killed (their next statement fails with 57P01 or a closed socket), short
 * enough that a real outage cuts the answer within a second.
 */
export const WINDOW_RETRY: WindowRetry = { retries: 3, delayMs: 100 };

/** The request a streamed history answers: its client's signal and its turn. */
export interface StreamedRequest {
  /** Aborts when the client goes away: a first window still waiting for its turn never runs. */
  signal?: AbortSignal;
  /** Gives the request's turn (`maxInFlight`) back: called before the first window waits. */
  releaseTurn?: () => void;
  /**
   * Told, once the first window is read, whether the answer is large: the window is full (by
   * count, or half the byte bound or more), so more windows most likely follow.
   */
  onFirstWindow?: (large: boolean) => void;
}

/**
 * `{ messages, leafId }` for the path root → `leafId`, read window by window
 * (`session.historyBatches()`) and written one window per piece as the client reads: a history
 * of any length costs one window of memory per connection, and a client that disconnects stops
 * the reads.
 *
 * Every window, the first included, is read and serialized in a turn of `gate`, after the
 * request gave its turn back (`request.releaseTurn`): the request slots bound the work of
 * deciding that an answer streams, never the wait for its windows, so hundreds of readers of
 * large answers hold no slot and new requests are not queued behind them. The first window is
 * still read before the status is sent: a storage outage then answers its own status (503
 * STORAGE_UNAVAILABLE with Retry-After) rather than a cut body; a client that went away while
 * the first window waited gets nothing, and no read runs for it. A window read that meets a
 * storage fault (a connection a database restart killed, say) is tried again `retry.retries`
 * times before the answer gives up: after the status is sent, failing means cutting the
 * connection.
 */
export async function streamedHistory(
  session: Session,
  leafId: string,
  gate: ReadGate,
  request: StreamedRequest = {},
  retry: WindowRetry = WINDOW_RETRY,
): Promise<Response> {
  const abort = new AbortController();
  const windows = new RetriedWindows(session, leafId, abort.signal, retry);
  const signal = request.signal;
  const onGone = () => abort.abort(signal?.reason);
  signal?.addEventListener("abort", onGone, { once: true });
  request.releaseTurn?.();
  let first: Uint8Array;
  try {
    first = await gate.run(
      async () => {
        const window = await windows.next();
        const text = window === undefined ? OPENING : piece(window, OPENING);
        request.onFirstWindow?.(
          window !== undefined &&
            (window.length >= PIECE_MESSAGES ||
              text.length - OPENING.length >= STREAMED_PIECE_BYTES / 2),
        );
        return encoder.encode(text);
      },
      0,
      signal,
    );
  } catch (error) {
    windows.close();
    // Nobody to answer: no error to log either.
    if (signal?.aborted) return new Response(null, { status: 499 });
    throw error;
  } finally {
    signal?.removeEventListener("abort", onGone);
  }
  let done = false;
  let read = 1;
  const stream = gate.begin();
  return streamedJson(
    first,
    async () => {
      if (done) return undefined;
      // The window's read, its serialization and its encoding all inside the gate: the CPU they
      // take is what new requests would otherwise wait behind, and what leaves the turn is
      // bytes, never the window's text (streamed-json.ts says why).
      const bytes = await gate.run(
        async () => {
          const window = await windows.next();
          return window === undefined
            ? undefined
            : encoder.encode(piece(window, ","));
        },
        windowPriority(stream, read++),
        abort.signal,
      );
      if (bytes !== undefined) return bytes;
      done = true;
      return encoder.encode(`],"leafId":${JSON.stringify(leafId)}}`);
    },
    // A cancelled answer ends its read; a rejection then (the aborted signal) goes nowhere.
    { abort, onEnd: () => windows.close() },
  );
}

/**
 * The windows of one path, each read tried again after a storage fault. A failed read ends
 * its iteration (an async generator that threw is finished), so a retry starts a new one and
 * passes over the messages already written, checking that the last of them is where it was:
 * the path of a fixed leaf changes only when messages are deleted, and then the answer fails
 * rather than continue with a gap. Only a count and one id are kept, so memory stays one window.
 */
class RetriedWindows {
  #batches: AsyncIterator<SessionMessage[]> | undefined;
  #sent = 0;
  #lastId: string | undefined;

  constructor(
    private readonly session: Session,
    private readonly leafId: string,
    private readonly signal: AbortSignal,
    private readonly retry: WindowRetry,
  ) {}

  /** The next window, or `undefined` after the last. */
  async next(): Promise<SessionMessage[] | undefined> {
    for (let attempt = 0; ; attempt++) {
      try {
        const window = await this.#read();
        if (window !== undefined) {
          this.#sent += window.length;
          this.#lastId = window.at(-1)?.id ?? this.#lastId;
        }
        return window;
      } catch (error) {
        this.close();
        if (
          attempt >= this.retry.retries ||
          this.signal.aborted ||
          !isStorageFault(error)
        )
          throw error;
        await delay(this.retry.delayMs * 2 ** attempt, this.signal);
      }
    }
  }

  /** Ends the current iteration, if any; a rejection then goes nowhere. */
  close(): void {
    const batches = this.#batches;
    this.#batches = undefined;
    void batches?.return?.(undefined).catch(() => undefined);
  }

  async #read(): Promise<SessionMessage[] | undefined> {
    if (this.#batches !== undefined) return next(this.#batches);
    const batches = this.session
      .historyBatches({
        leafId: this.leafId,
        signal: this.signal,
        batchSize: PIECE_MESSAGES,
        maxBatchBytes: STREAMED_PIECE_BYTES,
      })
      [Symbol.asyncIterator]();
    this.#batches = batches;
    // A new iteration after a retry: pass over what the client already has.
    let skipped = 0;
    while (skipped < this.#sent) {
      const window = await next(batches);
      if (window === undefined) throw pathChanged();
      if (skipped + window.length <= this.#sent) {
        skipped += window.length;
        if (skipped === this.#sent && window.at(-1)?.id !== this.#lastId)
          throw pathChanged();
        continue;
      }
      const rest = this.#sent - skipped;
      if (rest > 0 && window[rest - 1]?.id !== this.#lastId)
        throw pathChanged();
      return window.slice(rest);
    }
    return next(batches);
  }
}

async function next(
  batches: AsyncIterator<SessionMessage[]>,
): Promise<SessionMessage[] | undefined> {
  const step = await batches.next();
  return step.done ? undefined : step.value;
}

function pathChanged(): Error {
  return new Error(
    "The history changed while a window was read again after a storage fault",
  );
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}

/**
 * `lead`, then the window's messages as JSON, comma-separated: built flat by one `join` (the
 * lead added to the joined text with `+` made a concatenation that encoding copied flat again,
 * a second copy of every window in the young generation).
 */
function piece(batch: readonly SessionMessage[], lead: string): string {
  const parts = batch.map((message) => JSON.stringify(toWire(message)));
  parts[0] = lead + (parts[0] ?? "");
  return parts.join(",");
}
