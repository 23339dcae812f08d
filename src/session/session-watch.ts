import { ArborTypeError } from "./errors/index.js";
import type {
  ChangeListener,
  Unsubscribe,
  WatchChangesOptions,
} from "./contracts/changes.js";
import type { SessionRuntime } from "./session-runtime.js";

/**
 * `Session.watch` and `SessionManager.watch` (docs/behavior/events-and-audit.md, "Change feed"):
 * subscribes to the provider's `watchChanges` once the session is initialized. The subscription
 * is queued before any write issued after `watch()` returns, so those writes are seen. A custom
 * provider without `watchChanges` has the in-process feed of `withLocalChangeFeed`
 * (session-local-feed.ts).
 */
export function watchSession(
  runtime: SessionRuntime,
  listener: ChangeListener,
  options: WatchChangesOptions = {},
): Unsubscribe {
  if (typeof listener !== "function") {
    throw new ArborTypeError(
      "INVALID_ARGUMENT",
      "[arbor] watch() needs a listener function",
    );
  }
  let stop: Unsubscribe | null = null;
  let closed = false;
  void runtime.ready().then(
    ({ provider }) => {
      if (closed) return;
      stop = provider.watchChanges?.(listener, options) ?? null;
    },
    (error: unknown) => console.warn("[arbor] watch() could not start:", error),
  );
  return () => {
    closed = true;
    stop?.();
    stop = null;
  };
}
