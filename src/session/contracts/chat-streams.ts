/**
 * The optional `streams` capability of a `Backend` (docs/ai-sdk.md, "Resumable streams"): the
 * chunks of the answer a chat is generating, stored so that a client that reloads, or a server
 * process that did not start the answer, can read it to the end, and so that a stop asked for in
 * one process reaches the process that generates. A session has at most one active stream.
 *
 * Chunks are opaque strings (the route helper stores JSON-encoded UI message chunks). Every
 * method is one atomic write or read.
 */
export interface BackendStreams {
  /**
   * Makes `streamId` the session's active stream, with no chunks, and drops the chunks of the
   * session's earlier streams. Returns `false`, and writes nothing, while another stream of the
   * session is active and was written to within `staleAfterMs` (a stream whose writer died is
   * taken over after that).
   */
  begin(
    sessionId: string,
    streamId: string,
    options: { staleAfterMs: number },
  ): Promise<boolean>;
  /**
   * Appends `chunks` at the end of the active stream `streamId`. `stopRequested` is `true` when a
   * stop was asked for, or when `streamId` is no longer the session's active stream (then nothing
   * was written): either way the writer should end.
   */
  append(
    sessionId: string,
    streamId: string,
    chunks: readonly string[],
  ): Promise<{ stopRequested: boolean }>;
  /**
   * The session's latest stream and its chunks from index `from` on, or `null` when the session
   * has none. The state is read before the chunks, so a `"done"` stream's chunks are all there.
   */
  read(sessionId: string, from: number): Promise<StoredStreamRead | null>;
  /** Asks the session's active stream to stop. `false` when no stream is active. */
  requestStop(sessionId: string): Promise<boolean>;
  /** Marks `streamId` done (a no-op when it is no longer the session's stream). */
  finish(sessionId: string, streamId: string): Promise<void>;
}

/** What `BackendStreams.read()` returns. */
export interface StoredStreamRead {
  streamId: string;
  status: "active" | "done";
  stopRequested: boolean;
  /** How many chunks the stream holds in all. */
  chunkCount: number;
  /** The chunks from the index read from. */
  chunks: string[];
}
