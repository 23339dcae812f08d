/**
 * Large JSON answers written piece by piece under backpressure (docs/server.md#large-answers).
 *
 * A body built whole (`c.json(value)`) costs its full size in memory for as long as the client
 * takes to read it: hundreds of clients reading a multi-megabyte history slowly held gigabytes,
 * and the work to build each answer was done even for clients that had already gone. Here the
 * body is a pull-based `ReadableStream` with no queue of its own (high-water mark 0): the next
 * piece is produced only when the writer asks for one, and the Node adapter asks only once the
 * socket drained the previous one. So per connection at most one piece waits in the process
 * beside the socket's own buffer, and when the client disconnects the stream is cancelled, the
 * signal aborts, and no further piece (no further store read) is produced.
 *
 * Pieces come as bytes, encoded by whoever produced them: a piece produced in a later turn of
 * the event loop travels through promises made before that turn (the producer's, this stream's
 * pull, the writer's read), which beside hundreds of waiting streams are old enough to have been
 * promoted by the garbage collector. An old promise resolved with a young value keeps it alive
 * through every scavenge until the next full collection, dead or not: a piece as a string was
 * copied and promoted whole, one window per window written; as bytes, only the small wrapper of
 * a backing store that lives outside the heap.
 *
 * Web streams only, no Node built-ins: the same code runs in workerd.
 */

/** Most UTF-8 bytes of stored JSON one streamed piece holds; a larger single message comes alone. */
export const STREAMED_PIECE_BYTES = 64 * 1024;

/**
 * Produces the next piece of one answer, UTF-8 encoded; `undefined` when there are no more. Its
 * store reads take the signal of `control.abort`, which aborts when the client has gone.
 */
export type PieceSource = () => Promise<Uint8Array | undefined>;

/**
 * A 200 JSON `Response` whose body is `first`, then whatever `next()` produces, one piece per
 * read of the body. `next` is called only when the previous piece was taken by the writer;
 * `abort` aborts when the body is cancelled (the client disconnected), and `onEnd` runs once
 * whichever way the body ends (finished, failed or cancelled).
 */
export function streamedJson(
  first: Uint8Array,
  next: PieceSource,
  control: { abort: AbortController; onEnd?: () => void },
): Response {
  let pending: Uint8Array | undefined = first;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    control.onEnd?.();
  };
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const piece = pending ?? (await next());
          pending = undefined;
          // Cancelled while the piece was produced: nobody reads it.
          if (control.abort.signal.aborted) return;
          if (piece === undefined) {
            end();
            controller.close();
          } else controller.enqueue(piece);
        } catch (error) {
          end();
          // Headers are sent: a failure now can only cut the connection, which the client sees
          // as an incomplete answer (never a complete but wrong one).
          controller.error(error);
        }
      },
      cancel(reason) {
        control.abort.abort(reason ?? new Error("The client disconnected"));
        end();
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, {
    status: 200,
    headers: { "Content-Type": "application/json" },
  });
}
