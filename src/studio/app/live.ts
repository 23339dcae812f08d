/**
 * Live updates for the open session: reads GET /v1/sessions/{id}/events through fetch (not
 * EventSource, which cannot send the Authorization header) and calls back once per burst of
 * change events. Reconnects with a growing delay after a drop.
 */
import { authHeaders } from "./auth.js";

/** Follows a session's change events until the returned function is called. */
export function followSession(
  url: string,
  onChange: () => void,
  onState: (connected: boolean) => void,
): () => void {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  // A burst of writes (an import, a turn with tool calls) becomes one refresh.
  const changed = () => {
    clearTimeout(timer);
    timer = setTimeout(onChange, 250);
  };
  void (async () => {
    let delay = 1000;
    let reconnecting = false;
    while (!controller.signal.aborted) {
      try {
        const response = await fetch(url, {
          headers: { accept: "text/event-stream", ...authHeaders() },
          signal: controller.signal,
        });
        if (!response.ok || !response.body)
          throw new Error(`events: HTTP ${response.status}`);
        onState(true);
        delay = 1000;
        await readEvents(response.body, (name) => {
          // `ready` after a reconnect: writes may have happened while the stream was down.
          if (name !== "ready" || reconnecting) changed();
        });
      } catch {
        if (controller.signal.aborted) return;
      }
      onState(false);
      reconnecting = true;
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 30_000);
    }
  })();
  return () => {
    clearTimeout(timer);
    controller.abort();
  };
}

/** How often an open Blocks or Prompt tab reads the blocks again. */
const BLOCK_POLL_MS = 3000;

/**
 * Calls `onChange` when the session's blocks change. The change feed announces messages and
 * overlays, not block writes, so the tabs that show blocks read them every few seconds (the API
 * reads them from their store) and refresh when the content differs from the first read.
 */
export function followBlocks(
  read: () => Promise<unknown>,
  onChange: () => void,
): () => void {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let seen: string | null = null;
  const poll = async () => {
    try {
      const now = JSON.stringify(await read());
      if (stopped) return;
      if (seen !== null && now !== seen) onChange();
      seen = now;
    } catch {
      // Unreachable or refused: the shell says so; the next read tries again.
    }
    if (!stopped) timer = setTimeout(() => void poll(), BLOCK_POLL_MS);
  };
  void poll();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

// --- Internal helpers ---

/** Calls `onEvent` with the name of every event that carries data (comments and heartbeats are skipped). */
async function readEvents(
  body: ReadableStream<Uint8Array>,
  onEvent: (name: string) => void,
): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, "");
      const lines = block.split(/\r?\n/);
      const name =
        lines
          .find((line) => line.startsWith("event:"))
          ?.slice(6)
          .trim() ?? "message";
      if (lines.some((line) => line.startsWith("data:"))) onEvent(name);
    }
  }
}
