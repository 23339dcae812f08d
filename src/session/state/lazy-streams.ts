import type { BackendStreams } from "../contracts/chat-streams.js";

/**
 * A store's `BackendStreams` whose code (and, for SQL stores, tables) loads on first call, so a
 * store that never streams a chat answer, and a Worker bundle, does not carry it. A failed load
 * is tried again on the next call. Every member is written out, so the contract checks it.
 */
export function lazyStreams(
  load: () => Promise<BackendStreams>,
): BackendStreams {
  let loaded: Promise<BackendStreams> | null = null;
  const real = () =>
    (loaded ??= load().catch((error: unknown) => {
      loaded = null;
      throw error;
    }));
  return {
    begin: async (sessionId, streamId, options) =>
      (await real()).begin(sessionId, streamId, options),
    append: async (sessionId, streamId, chunks) =>
      (await real()).append(sessionId, streamId, chunks),
    read: async (sessionId, from) => (await real()).read(sessionId, from),
    requestStop: async (sessionId) => (await real()).requestStop(sessionId),
    finish: async (sessionId, streamId) =>
      (await real()).finish(sessionId, streamId),
  };
}
