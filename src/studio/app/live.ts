/**
 * Live updates for the open session: reads GET /v1/sessions/{id}/events through fetch (not
 * EventSource, which cannot send the Authorization header) and calls back once per burst of
 * change events. Reconnects with a growing delay after a drop.
 */
import { authHeaders } from "./auth.js";

/**
 * What a burst of change events touched: `messages` (messages and overlays), `blocks` (a write
 * to a context block). After a reconnect both, since writes may have happened meanwhile.
 */
export interface ChangedParts {
  messages: boolean;
  blocks: boolean;
}

/** Follows a session's change events until the returned function is called. */
export function followSession(
  url: string,
  onChange: (changed: ChangedParts) => void,
  onState: (connected: boolean) => void,
): () => void {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let pending: ChangedParts = { messages: false, blocks: false };
  // A burst of writes (an import, a turn with tool calls) becomes one refresh.
  const changed = (parts: Partial<ChangedParts>) => {
    pending = {
      messages: pending.messages || parts.messages === true,
      blocks: pending.blocks || parts.blocks === true,
    };
    clearTimeout(timer);
    timer = setTimeout(() => {
      const burst = pending;
      pending = { messages: false, blocks: false };
      onChange(burst);
    }, 250);
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
        await readEvents(response.body, (name, data) => {
          // `ready` after a reconnect: writes may have happened while the stream was down.
          if (name === "ready") {
            if (reconnecting) changed({ messages: true, blocks: true });
            return;
          }
          const type = changeType(data);
          if (type === "block") changed({ blocks: true });
          else if (type === "reset") changed({ messages: true, blocks: true });
          else changed({ messages: true });
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

// --- Internal helpers ---

/** The `type` of a change event's data, or `null` when it has none. */
function changeType(data: string): string | null {
  try {
    const parsed = JSON.parse(data) as { type?: unknown };
    return typeof parsed.type === "string" ? parsed.type : null;
  } catch {
    return null;
  }
}

/** Calls `onEvent` with the name and data of every event that carries data (comments and heartbeats are skipped). */
async function readEvents(
  body: ReadableStream<Uint8Array>,
  onEvent: (name: string, data: string) => void,
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
      const data = lines
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).replace(/^ /, ""));
      if (data.length > 0) onEvent(name, data.join("\n"));
    }
  }
}
