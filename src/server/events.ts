import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { streamSSE, type SSEStreamingApi } from "hono/streaming";
import type { ChangeEvent } from "../session/contracts/changes.js";
import { openSession, type ServerDeps, type ServerEnv } from "./context.js";
import { errors, SessionParams } from "./schemas/common.js";

/** A comment line this often keeps proxies from closing an idle stream. */
const HEARTBEAT_MS = 15_000;

/** How long the `ready` event waits for the store to say where the stream starts. */
const START_WAIT_MS = 1_000;

/** The longest position accepted (a PostgreSQL cursor lists the transactions then in flight). */
const MAX_POSITION_LENGTH = 8192;

export const sessionEvents = createRoute({
  method: "get",
  path: "/v1/sessions/{id}/events",
  tags: ["Events"],
  summary: "Server-sent change events of the session",
  description:
    "First `event: ready` (data `{ sessionId }`, `id:` the position the stream starts after), " +
    "then one `event: change` per committed write " +
    "(data: `{ type, sessionId, ids, at, seq, cursor }`, `id:` the change's `seq`), until the " +
    "client disconnects. A client that reconnects with `Last-Event-ID` (as `EventSource` does by " +
    "itself), or `?after=` with an earlier event's `seq` or `cursor`, first gets every change it " +
    "missed; when the change log no longer reaches back that far, one `change` of type `reset` " +
    "instead (re-read the session, then keep listening).",
  request: {
    params: SessionParams,
    query: z.object({
      after: z.string().max(MAX_POSITION_LENGTH).optional().openapi({
        description:
          "Resume after this change (its `seq` or `cursor`); the `Last-Event-ID` header wins.",
      }),
    }),
    headers: z.object({
      "last-event-id": z
        .string()
        .max(MAX_POSITION_LENGTH)
        .optional()
        .openapi({ description: "The `id:` of the last event received." }),
    }),
  },
  responses: {
    200: {
      content: { "text/event-stream": { schema: z.string() } },
      description: "The event stream",
    },
    ...errors(400, 404),
  },
});

/** `GET /v1/sessions/{id}/events`: the session's change feed as server-sent events. */
export function eventRoutes(
  app: OpenAPIHono<ServerEnv>,
  deps: ServerDeps,
): void {
  app.openapi(sessionEvents, async (c) => {
    const { id } = c.req.valid("param");
    const after = positionOf(
      c.req.valid("header")["last-event-id"] || c.req.valid("query").after,
    );
    const session = await openSession(deps, c, id);
    const signal = c.req.raw.signal;
    // Started before the stream, so a malformed position answers 400 and the catch-up is queued.
    const feed = new EventQueue();
    let started: (position: string) => void = () => undefined;
    const start = new Promise<string>((resolve) => (started = resolve));
    const stop = session.watch((event) => feed.push(event), {
      after,
      onStart: (position) => started(position),
    });
    return streamSSE(c, async (stream) => {
      const close = () => feed.close();
      stream.onAbort(close);
      signal?.addEventListener("abort", close);
      try {
        // `id:` the position the stream starts after, so a client gone before its first change
        // still resumes from here (none when the store cannot tell yet, e.g. while unreachable).
        const position = await Promise.race([start, delay(START_WAIT_MS)]);
        await stream.writeSSE({
          event: "ready",
          data: JSON.stringify({ sessionId: id }),
          ...(position === undefined ? {} : { id: position }),
        });
        await pump(stream, feed);
      } finally {
        stop();
        signal?.removeEventListener("abort", close);
      }
    });
  });
}

// --- Internal helpers ---

/** A `seq` (digits) as a number, a cursor as it is; the backend checks it is one of its own. */
function positionOf(value: string | undefined): string | number | undefined {
  if (value === undefined || value === "") return undefined;
  return /^\d{1,15}$/.test(value) ? Number(value) : value;
}

function delay(ms: number): Promise<undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    (timer as { unref?: () => void }).unref?.();
  });
}

/** Writes events as they come, a heartbeat when none came for a while, until closed. */
async function pump(stream: SSEStreamingApi, feed: EventQueue): Promise<void> {
  while (!feed.closed && !stream.aborted) {
    const events = await feed.take(HEARTBEAT_MS);
    if (feed.closed || stream.aborted) return;
    if (events.length === 0) await stream.write(": heartbeat\n\n");
    for (const event of events) {
      await stream.writeSSE({
        event: "change",
        data: JSON.stringify(event),
        // The session's seq: what `Last-Event-ID` brings back to resume from.
        id: String(event.seq),
      });
    }
  }
}

/** Events between the watcher (push) and the writer (take). */
class EventQueue {
  closed = false;
  #events: ChangeEvent[] = [];
  #wake: (() => void) | null = null;

  push(event: ChangeEvent): void {
    this.#events.push(event);
    this.#wake?.();
  }

  close(): void {
    this.closed = true;
    this.#wake?.();
  }

  /** The queued events, waiting up to `ms` for the first one. */
  async take(ms: number): Promise<ChangeEvent[]> {
    if (this.#events.length === 0 && !this.closed) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        timer = setTimeout(resolve, ms);
      });
      clearTimeout(timer);
      this.#wake = null;
    }
    return this.#events.splice(0);
  }
}
