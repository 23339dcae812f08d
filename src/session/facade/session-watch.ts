import { hasCapability } from "../contracts/provider-capabilities.js";
import { ArborError, invalidArgument } from "../errors/index.js";
import type {
  ChangeListener,
  Unsubscribe,
  WatchChangesOptions,
} from "../contracts/changes.js";
import type { SessionRuntime } from "./session-runtime.js";

/**
 * `Session.watch` and `SessionManager.watch` (docs/behavior/events-and-audit.md, "Change feed"):
 * subscribes to the provider's `watchChanges`, the change feed a provider declares. The session
 * is set up on the spot (without waiting for its skill scan), so the subscription starts before
 * any write issued after `watch()` returns, and a malformed `after` throws here. A provider
 * without `watchChanges` has no feed: `NOT_SUPPORTED` (a custom provider can offer one with
 * `InProcessChangeLog`, docs/custom-providers.md).
 */
export function watchSession(
  runtime: SessionRuntime,
  listener: ChangeListener,
  options: WatchChangesOptions = {},
): Unsubscribe {
  if (typeof listener !== "function") {
    throw invalidArgument("watch() needs a listener function");
  }
  const { provider } = runtime.setUp();
  if (!hasCapability(provider, "changeFeed")) {
    throw new ArborError(
      "NOT_SUPPORTED",
      "[arbor] watch() needs a provider with watchChanges(): the built-in backends have it; a custom provider can implement it with InProcessChangeLog",
    );
  }
  let closed = false;
  // "Nothing after stop() returns" holds whatever the provider's own delivery does.
  const stop = provider.watchChanges(
    (event) => (closed ? undefined : listener(event)),
    options,
  );
  return () => {
    if (closed) return;
    closed = true;
    stop();
  };
}
