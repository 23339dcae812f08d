import type { BackendStreams } from "../contracts/chat-streams.js";

/** The members of `BackendStreams`, each forwarded to the loaded implementation. */
const METHODS = ["begin", "append", "read", "requestStop", "finish"] as const;

/**
 * A store's `BackendStreams` whose code (and, for SQL stores, tables) loads on first call, so a
 * store that never streams a chat answer, and a Worker bundle, does not carry it. A failed load
 * is tried again on the next call.
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
  return Object.fromEntries(
    METHODS.map((name) => [
      name,
      async (...args: never[]) =>
        ((await real())[name] as (...a: never[]) => unknown)(...args),
    ]),
  ) as unknown as BackendStreams;
}
