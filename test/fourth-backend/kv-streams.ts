// The chunks of chat answers being generated (`BackendStreams`): one document per session
// (`stream:<id>`), so a reader that did not start the answer reads it from the store.
import type { BackendStreams } from "arbor-memory/session";
import type { KvStore } from "./kv-store.js";

interface StreamDoc {
  streamId: string;
  status: "active" | "done";
  stopRequested: boolean;
  chunks: string[];
  /** ms: the last write, to take over a stream whose writer died. */
  updatedAt: number;
}

export const streamKey = (sessionId: string) => `stream:${sessionId}`;

export function kvStreams(store: KvStore): BackendStreams {
  const read = (sessionId: string) =>
    store.read<StreamDoc>(streamKey(sessionId));
  const write = (sessionId: string, doc: StreamDoc) =>
    store.write(streamKey(sessionId), doc);
  return {
    begin: (sessionId, streamId, { staleAfterMs }) =>
      store.exclusive(() => {
        const current = read(sessionId);
        if (
          current?.status === "active" &&
          Date.now() - current.updatedAt < staleAfterMs
        )
          return false;
        write(sessionId, {
          streamId,
          status: "active",
          stopRequested: false,
          chunks: [],
          updatedAt: Date.now(),
        });
        return true;
      }),
    append: (sessionId, streamId, chunks) =>
      store.exclusive(() => {
        const current = read(sessionId);
        if (current?.streamId !== streamId || current.status !== "active")
          return { stopRequested: true };
        current.chunks.push(...chunks);
        current.updatedAt = Date.now();
        write(sessionId, current);
        return { stopRequested: current.stopRequested };
      }),
    read: (sessionId, from) => {
      const current = read(sessionId);
      return Promise.resolve(
        current && {
          streamId: current.streamId,
          status: current.status,
          stopRequested: current.stopRequested,
          chunkCount: current.chunks.length,
          chunks: current.chunks.slice(from),
        },
      );
    },
    requestStop: (sessionId) =>
      store.exclusive(() => {
        const current = read(sessionId);
        if (current?.status !== "active") return false;
        write(sessionId, { ...current, stopRequested: true });
        return true;
      }),
    finish: (sessionId, streamId) =>
      store.exclusive(() => {
        const current = read(sessionId);
        if (current?.streamId === streamId)
          write(sessionId, { ...current, status: "done" });
      }),
  };
}
