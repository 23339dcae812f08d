import {
  PostgresSessionProvider,
  Session as ArborSession,
  type SessionProvider,
} from "../session/index.js";
import { isPostgresClient } from "../session/contracts/postgres-client.js";
import type { SessionsStore } from "./types.js";

/**
 * Opens Arbor `Session`s over one store, one per session id. A PostgreSQL client is wrapped once
 * in a `PostgresSessionProvider`, which `Session.create()` would otherwise reject; anything
 * `Session.create()` refuses throws its `INVALID_TARGET` here, at `new Sessions()`.
 *
 * The package stores every message whole, however large (split over continuation rows where a
 * row is bounded), so the sessions opened here have no row-size limit: the `Session` API's
 * default cut would lose data an app moving over relies on.
 */
export function sessionOpener(
  store: SessionsStore,
): (sessionId: string) => ArborSession {
  const target = resolveTarget(store);
  // Fails now, with Arbor's own message, rather than at the first write.
  ArborSession.create(target);
  return (sessionId) =>
    ArborSession.create(target).forSession(sessionId).withRowSizeLimit(false);
}

// --- Internal helpers ---

function resolveTarget(
  store: SessionsStore,
): Parameters<typeof ArborSession.create>[0] {
  if (typeof store === "object" && store !== null) {
    if (typeof Reflect.get(store, "sql") === "function")
      return store as Parameters<typeof ArborSession.create>[0];
    if (
      typeof Reflect.get(store, "writeMessages") === "function" ||
      typeof Reflect.get(store, "appendMessage") === "function"
    )
      return store as SessionProvider;
  }
  if (isPostgresClient(store)) return new PostgresSessionProvider(store);
  return store;
}
