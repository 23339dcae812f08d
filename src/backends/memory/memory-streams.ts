/**
 * The in-memory store's chat streams (the optional `streams` capability): one record per session,
 * kept in the store itself (`MemoryStore.chatStreams`), so a resumed reader in the same process reads what the writer stored.
 */
import type { BackendStreams } from "../../session/contracts/chat-streams.js";
import type { MemoryStore } from "./memory-store.js";

/** The streams of `store`. */
export function memoryStreams(store: MemoryStore): BackendStreams {
  const streams = store.chatStreams;
  return {
    async begin(sessionId, streamId, { staleAfterMs }) {
      const current = streams.get(sessionId);
      if (
        current?.status === "active" &&
        Date.now() - current.updatedAt < staleAfterMs
      )
        return false;
      streams.set(sessionId, {
        streamId,
        status: "active",
        stopRequested: false,
        chunks: [],
        updatedAt: Date.now(),
      });
      return true;
    },
    async append(sessionId, streamId, chunks) {
      const current = streams.get(sessionId);
      if (current?.streamId !== streamId || current.status !== "active")
        return { stopRequested: true };
      current.chunks.push(...chunks);
      current.updatedAt = Date.now();
      return { stopRequested: current.stopRequested };
    },
    async read(sessionId, from) {
      const current = streams.get(sessionId);
      if (!current) return null;
      return {
        streamId: current.streamId,
        status: current.status,
        stopRequested: current.stopRequested,
        chunkCount: current.chunks.length,
        chunks: current.chunks.slice(from),
      };
    },
    async requestStop(sessionId) {
      const current = streams.get(sessionId);
      if (current?.status !== "active") return false;
      current.stopRequested = true;
      return true;
    },
    async finish(sessionId, streamId) {
      const current = streams.get(sessionId);
      if (current?.streamId === streamId) current.status = "done";
    },
  };
}

/**
 * Drops the session's stored stream (an erase: the chunks hold the text of an answer). An answer
 * still being written is told to stop by its next append.
 */
export function eraseMemoryStreams(
  store: MemoryStore,
  sessionId: string,
): void {
  store.chatStreams.delete(sessionId);
}
