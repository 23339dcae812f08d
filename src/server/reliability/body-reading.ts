import type { MiddlewareHandler } from "hono";
import type { ServerEnv } from "../context.js";
import { errorResponse } from "../errors.js";

/** How much of a body is read before the request runs, and for how long. */
export interface BodyReading {
  /** The largest body, in bytes, of a request to `path` (→ 413 `PAYLOAD_TOO_LARGE`). */
  limit(path: string): number;
  /** What a 413 adds for `path` (how to send a larger body another way), or "". */
  hint(path: string): string;
  /** Milliseconds the whole body may take to arrive (→ 408 `BODY_TIMEOUT`); 0 for no limit. */
  timeoutMs: number;
  /**
   * Bytes of bodies held at once, across requests (arriving, waiting for a turn or in use); a
   * body that would pass it answers 503 `OVERLOADED`. 0 for no limit.
   */
  budget: number;
}

/**
 * Reads the whole request body, within its size limit and `timeoutMs`, BEFORE the request asks
 * the load limits for a turn, then hands the route a request over the bytes read.
 *
 * Why first: a turn is a share of the work the server does at once (storage connections,
 * memory for answers). A client trickling its body byte by byte does no such work, but a handler
 * reading that body held its turn for as long as the client liked, and a few dozen slow uploads
 * (or uploads whose connection closed with the body unfinished, whose read never settled) held
 * every turn and kept the whole API answering 503 `OVERLOADED`. Read here, a slow body costs its
 * own connection and at most its size limit in memory, never a turn; a body that stops arriving
 * answers 408 `BODY_TIMEOUT`, and a client that goes away releases everything at once.
 */
export function readBodies(options: BodyReading): MiddlewareHandler<ServerEnv> {
  // Read before a turn, bodies are no longer bounded by the turns: without a budget a thousand
  // connections each sending a body just under its limit would hold a thousand of them.
  const held = { bytes: 0 };
  return async (c, next) => {
    const raw = c.req.raw;
    if (raw.method === "GET" || raw.method === "HEAD" || raw.body === null)
      return next();
    const limit = options.limit(c.req.path);
    const tooLarge = () => {
      // The rest of the body is not read: the connection cannot carry another request.
      c.header("Connection", "close");
      return errorResponse(
        c,
        "PAYLOAD_TOO_LARGE",
        `The request body is over this route's limit of ${sizeText(limit)}${options.hint(c.req.path)}`,
      );
    };
    const declared = Number(raw.headers.get("content-length") ?? Number.NaN);
    if (declared > limit) return tooLarge();
    const read = await readWithin(raw.body, limit, options, raw, held);
    if (read === "too-large") return tooLarge();
    if (read === "over-budget") {
      c.header("Connection", "close");
      return errorResponse(
        c,
        "OVERLOADED",
        `Request bodies being received hold ${sizeText(options.budget)}, this server's budget: retry after the Retry-After delay`,
      );
    }
    if (read === "timeout") {
      c.header("Connection", "close");
      return errorResponse(
        c,
        "BODY_TIMEOUT",
        `The request body did not arrive within ${options.timeoutMs} ms`,
      );
    }
    // The client went away mid-body: nobody reads this answer, and no route runs for it.
    if (read === "aborted") return new Response(null, { status: 499 });
    c.req.raw = new Request(raw, { body: read });
    try {
      await next();
    } finally {
      held.bytes -= read.byteLength;
    }
  };
}

// --- Internal helpers ---

type ReadOutcome =
  Uint8Array | "too-large" | "over-budget" | "timeout" | "aborted";

/**
 * The body's bytes, or why there are none. Never waits past `timeoutMs` or the request's abort,
 * even on a read that never settles (a stream whose connection closed mid-body may neither end
 * nor fail). On a failure the stream is left as it is, not cancelled: cancelling it would
 * destroy the socket before the error answer is written; the answer says `Connection: close`
 * instead, so Node closes the connection once it is sent.
 */
async function readWithin(
  body: ReadableStream<Uint8Array>,
  limit: number,
  { timeoutMs, budget }: BodyReading,
  request: Request,
  held: { bytes: number },
): Promise<ReadOutcome> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let kept = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<"timeout" | "aborted">((resolve) => {
    if (timeoutMs > 0) timer = setTimeout(() => resolve("timeout"), timeoutMs);
    const signal = request.signal;
    if (signal.aborted) resolve("aborted");
    onAbort = () => resolve("aborted");
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    for (;;) {
      const pending = reader.read();
      const next = await Promise.race([
        pending,
        stopped,
        // A stream that errors (the connection reset mid-body) is a client gone away.
      ]).catch(() => "aborted" as const);
      if (next === "timeout" || next === "aborted") {
        pending.catch(() => undefined);
        return next;
      }
      if (next.done) break;
      const chunk = next.value.byteLength;
      if (size + chunk > limit) return "too-large";
      if (budget > 0 && held.bytes + chunk > budget) return "over-budget";
      size += chunk;
      held.bytes += chunk;
      chunks.push(next.value);
    }
    kept = true;
  } finally {
    // A read that failed gives its bytes back now; one that succeeded keeps them counted until
    // its request is done (readBodies).
    if (!kept) held.bytes -= size;
    clearTimeout(timer);
    if (onAbort) request.signal.removeEventListener("abort", onAbort);
  }
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** Bytes as people read them: `10 MiB`, `512 KiB`, `900 bytes`. */
export function sizeText(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0)
    return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
