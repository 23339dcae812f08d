import type { SessionMessage } from "../../session/contracts/types.js";
import type { Session } from "../../session/session.js";
import { toWire } from "../context.js";
import type { ReadGate } from "./read-gate.js";
import { STREAMED_PIECE_BYTES, streamedJson } from "./streamed-json.js";

/** Most messages one piece of a streamed history holds. */
const PIECE_MESSAGES = 50;

/**
 * `{ messages, leafId }` for the path root → `leafId`, read window by window
 * (`session.historyBatches()`) and written one window per piece as the client reads: a history
 * of any length costs one window of memory per connection, and a client that disconnects stops
 * the reads. The caller read the leaf (in the request's slot), so a missing session or an outage
 * has answered its own status already; every window read after that passes `gate`, so the
 * request's own work stays one read however long the history, and the reads of many streamed
 * answers together hold only a few database connections.
 */
export function streamedHistory(
  session: Session,
  leafId: string,
  gate: ReadGate,
): Response {
  const abort = new AbortController();
  const batches = session
    .historyBatches({
      leafId,
      signal: abort.signal,
      batchSize: PIECE_MESSAGES,
      maxBatchBytes: STREAMED_PIECE_BYTES,
    })
    [Symbol.asyncIterator]();
  let state: "first" | "more" | "tail" | "done" = "first";
  let windows = 0;
  return streamedJson(
    '{"messages":[',
    async () => {
      if (state === "first" || state === "more") {
        // The window's read and its serialization both inside the gate: the CPU they take is
        // what new requests would otherwise wait behind.
        const text = await gate.run(async () => {
          const next = await batches.next();
          return next.done ? undefined : piece(next.value);
        }, windows++);
        if (text !== undefined) {
          const comma = state === "more" ? "," : "";
          state = "more";
          return comma + text;
        }
        state = "tail";
      }
      if (state === "tail") {
        state = "done";
        return `],"leafId":${JSON.stringify(leafId)}}`;
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
