import type { BackendStreams } from "../session/index.js";
import type { LocalStream } from "./stream-hub.js";
import type { ChatUIMessageChunk } from "./types.js";

/**
 * The chunks of a stream this process generates, from the first: what the POST response and a
 * resume in the same process send. Cancelling it (a disconnect) detaches the reader only.
 */
export function localChunks(
  stream: LocalStream,
): ReadableStream<ChatUIMessageChunk> {
  let next = 0;
  return new ReadableStream({
    async pull(controller) {
      while (next >= stream.chunks.length && !stream.done)
        await stream.changed();
      if (next < stream.chunks.length) {
        controller.enqueue(
          JSON.parse(stream.chunks[next++]!) as ChatUIMessageChunk,
        );
      } else controller.close();
    },
  });
}

/**
 * The chunks of a stream another process generates, read from the store every `pollMs` until it
 * is done, replaced by a newer stream of the session, or silent for `staleAfterMs` (its writer
 * died: the reader ends instead of waiting for ever).
 */
export function storedChunks(
  streams: BackendStreams,
  sessionId: string,
  streamId: string,
  timing: { pollMs: number; staleAfterMs: number },
): ReadableStream<ChatUIMessageChunk> {
  const { pollMs, staleAfterMs } = timing;
  let next = 0;
  let cancelled = false;
  let progressAt = Date.now();
  return new ReadableStream({
    async pull(controller) {
      for (;;) {
        const read = await streams.read(sessionId, next);
        if (cancelled) return;
        if (!read || read.streamId !== streamId) return controller.close();
        if (read.chunks.length > 0) {
          progressAt = Date.now();
          next += read.chunks.length;
          for (const chunk of read.chunks)
            controller.enqueue(JSON.parse(chunk) as ChatUIMessageChunk);
          return;
        }
        if (read.status === "done" && next >= read.chunkCount)
          return controller.close();
        if (Date.now() - progressAt > staleAfterMs) return controller.close();
        await new Promise((resolve) => setTimeout(resolve, pollMs));
      }
    },
    cancel() {
      cancelled = true;
    },
  });
}
