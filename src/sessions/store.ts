import { Session as ArborSession } from "../session/index.js";
import { sessionsSeed } from "../session/facade/seed-targets.js";
import type { SessionsStore } from "./types.js";

/**
 * Opens Arbor `Session`s over one store, one per session id. What the store is (a `Backend`, a
 * `sql` store, a `SessionProvider`) is asked in the session's seed mapping only; anything it
 * refuses throws its `INVALID_TARGET` here, at `new Sessions()`.
 *
 * The package stores every message whole, however large (split over continuation rows where a
 * row is bounded), so the sessions opened here have no row-size limit: the `Session` API's
 * default cut would lose data an app moving over relies on.
 */
export function sessionOpener(
  store: SessionsStore,
): (sessionId: string) => ArborSession {
  const { sessionTarget } = sessionsSeed(store);
  return (sessionId) => {
    const { target, scope } = sessionTarget(sessionId);
    const session = ArborSession.create(target);
    return (scope ? session.forSession(sessionId) : session).withRowSizeLimit(
      false,
    );
  };
}
