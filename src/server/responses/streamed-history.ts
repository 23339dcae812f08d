import type { SessionMessage } from "../../session/contracts/types.js";
import type { Session } from "../../session/session.js";
import { toWire } from "../context.js";
import { STREAMED_PIECE_BYTES, streamedJson } from "./streamed-json.js";

/** Most messages one piece of a streamed history holds. */
const PIECE_MESSAGES = 50;

/**
 * `{ messages, leafId }` for the path root → `leafId`, read window by window
 * (`session.historyBatches()`) and written one window per piece as the client reads: a history
 * of any length costs one window of memory per connection, and a client that disconnects stops
 * the reads. The first window is read before the answer starts, so a missing session or a
 * storage outage still answers its own status.
 */
export async function streamedHistory(
  session: Session,
  leafId: string,
): Promise<Response> {
  const abort = new AbortController();
  const batches = session
    .historyBatches({
      leafId,
      signal: abort.signal,
      batchSize: PIECE_MESSAGES,
      maxBatchBytes: STREAMED_PIECE_BYTES,
    })
    [Symbol.asyncIterator]();
  const head = await batches.next();
  const tail = `],"leafId":${JSON.stringify(leafId)}}`;
  let state: "reading" | "tail" | "done" = head.done ? "tail" : "reading";
  const first = `{"messages":[${head.done ? "" : piece(head.value)}`;
  return streamedJson(
    first,
    async () => {
      if (state === "reading") {
        const next = await batches.next();
        if (!next.done) return `,${piece(next.value)}`;
        state = "tail";
      }
      if (state === "tail") {
        state = "done";
        return tail;
      }
      return undefined;
    },
    {
      abort,
      // A cancelled answer ends its read; a rejection then (the aborted signal) goes nowhere.
      onEnd: () => void batches.return?.(undefined).catch(() => undefined),
    },
  );
}

function piece(batch: readonly SessionMessage[]): string {
  return batch.map((message) => JSON.stringify(toWire(message))).join(",");
}
