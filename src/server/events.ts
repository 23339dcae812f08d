import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { streamSSE, type SSEStreamingApi } from "hono/streaming";
import type { ChangeEvent } from "../session/contracts/changes.js";
import { openSession, type ServerDeps, type ServerEnv } from "./context.js";
import { errors, SessionParams } from "./schemas/common.js";

/** A comment line this often keeps proxies from closing an idle stream. */
const HEARTBEAT_MS = 15_000;

export const sessionEvents = createRoute({
  method: "get",
  path: "/v1/sessions/{id}/events",
  tags: ["Events"],
  summary: "Server-sent change events of the session",
  description:
    "First `event: ready` (data `{ sessionId }`), then one `event: change` per committed write " +
    "(data: `{ type, sessionId, ids, at }`), until the client disconnects.",
  request: { params: SessionParams },
  responses: {
    200: {
      content: { "text/event-stream": { schema: z.string() } },
      description: "The event stream",
    },
    ...errors(404),
  },
});

/** `GET /v1/sessions/{id}/events`: the session's change feed as server-sent events. */
export function eventRoutes(
  app: OpenAPIHono<ServerEnv>,
  deps: ServerDeps,
): void {
  app.openapi(sessionEvents, async (c) => {
    const { id } = c.req.valid("param");
    const session = await openSession(deps, c, id);
    const signal = c.req.raw.signal;
    return streamSSE(c, async (stream) => {
      const feed = new EventQueue();
      const stop = session.watch((event) => feed.push(event));
      const close = () => feed.close();
      stream.onAbort(close);
      signal?.addEventListener("abort", close);
      try {
        await stream.writeSSE({
          event: "ready",
          data: JSON.stringify({ sessionId: id }),
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

/** Writes events as they come, a heartbeat when none came for a while, until closed. */
async function pump(stream: SSEStreamingApi, feed: EventQueue): Promise<void> {
  while (!feed.closed && !stream.aborted) {
    const events = await feed.take(HEARTBEAT_MS);
    if (feed.closed || stream.aborted) return;
    if (events.length === 0) await stream.write(": heartbeat\n\n");
    for (const event of events)
      await stream.writeSSE({ event: "change", data: JSON.stringify(event) });
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
