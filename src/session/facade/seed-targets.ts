/**
 * The one place that turns what a caller hands to `Session.create()`, `SessionManager.create()`
 * or `new Sessions()` into what Arbor runs on. A `Backend` is the way in (`postgresBackend()`,
 * `sqliteBackend()`, `sqlBackend()`, `memoryBackend()`); the seed's own forms stay and each maps
 * here, once:
 *
 * - a `sql` store (a Durable Object `this`, `openSqlite()`, any `sql` tag): the sql backend;
 * - a `SessionProvider` (`Session.create(provider)`, `new Sessions(provider)`): itself.
 *
 * Only this module asks what a target is; everything above it sees a provider or a `Backend`,
 * and everything below it is a backend (src/backends/). Nothing here guesses at drivers: a
 * target of no accepted form gets `INVALID_TARGET` with the accepted forms listed, PostgreSQL's
 * among them, so a `pg` Pool passed where a backend belongs says how to wrap it.
 */
import { isBackend, type Backend } from "../contracts/backend.js";
import {
  REQUIRED_PROVIDER_METHODS,
  type SeedSessionProvider,
  type SessionProvider,
} from "../contracts/provider.js";
import { adaptSeedProvider } from "./seed-provider.js";
import { isSqlProvider, type SqlProvider } from "../contracts/sql-provider.js";
import { ArborTypeError } from "../errors/index.js";
import { sqlBackend } from "../../backends/sql/sql-backend.js";
import { AgentSessionProvider } from "../../backends/sql/sql-session-provider.js";

/** What `Session.create()` runs on: a provider, and where status events are broadcast. */
export interface SessionSeed {
  provider: SessionProvider;
  /** A Durable Object Agent's own `broadcast`: only a `sql` store's is heard. */
  broadcast?: ((message: string) => void) | undefined;
}

/** One session of a store, as `Session.create()` takes it. */
export interface SessionTarget {
  target: SqlProvider | SessionProvider;
  /**
   * `true` for a target of the whole store (a `sql` store, a lone provider): the caller scopes
   * the Session with `forSession(sessionId)`. A backend's `session(sessionId)` is scoped already.
   */
  scope: boolean;
}

/** What `SessionManager.create()` runs on: the store's backend and how to open its sessions. */
export interface BackendSeed {
  backend: Backend;
  readonly sessionTarget: (sessionId: string) => SessionTarget;
}

/** What `new Sessions()` runs on: how to open the store's sessions. */
export interface SessionsSeed {
  readonly sessionTarget: (sessionId: string) => SessionTarget;
}

/**
 * `Session.create(target)`: a `sql` store becomes the sql backend's provider (its `broadcast`
 * kept), a `SessionProvider` is taken as it is. Anything else throws `INVALID_TARGET` naming the
 * accepted forms.
 */
export function sessionSeed(target: unknown): SessionSeed {
  if (isSqlProvider(target)) {
    return {
      provider: new AgentSessionProvider(target),
      broadcast:
        typeof target.broadcast === "function"
          ? (message) => target.broadcast?.(message)
          : undefined,
    };
  }
  const missing = missingProviderMethods(target);
  if (missing.length === 0) return { provider: sessionProviderOf(target) };
  throw new ArborTypeError(
    "INVALID_TARGET",
    `${SESSION_CREATE_FORMS}; ${whatItIs(target, missing)}`,
  );
}

/**
 * `SessionManager.create(target)`: a `Backend`, or a `sql` store (its sql backend). Anything else
 * throws `INVALID_TARGET` naming the accepted forms, `postgresBackend(client)` among them.
 */
export function backendSeed(target: unknown): BackendSeed {
  const seed = storeSeedOf(target);
  if (seed) return seed;
  throw new ArborTypeError(
    "INVALID_TARGET",
    `[arbor] SessionManager.create() takes ${BACKEND_FORMS}; for tests, SessionManager.inMemory(); ${whatItIs(target, null)}`,
  );
}

/**
 * `new Sessions(target)`: a `Backend`, a `sql` store, or a `SessionProvider`. Anything else throws
 * `INVALID_TARGET` naming the accepted forms.
 */
export function sessionsSeed(target: unknown): SessionsSeed {
  const seed = storeSeedOf(target);
  if (seed) return seed;
  const missing = missingProviderMethods(target);
  if (missing.length === 0)
    return {
      sessionTarget: () => ({
        target: sessionProviderOf(target),
        scope: true,
      }),
    };
  throw new ArborTypeError(
    "INVALID_TARGET",
    `[arbor] new Sessions() takes ${BACKEND_FORMS}, or a SessionProvider (${PROVIDER_FORMS}); ${whatItIs(target, missing)}`,
  );
}

/**
 * `new Session(target)` takes a `SessionProvider` only (a `sql` store goes to `Session.create()`):
 * anything else throws `INVALID_TARGET` now, naming the accepted forms, instead of failing at the
 * first write.
 */
export function assertSessionProvider(
  target: unknown,
): asserts target is SessionProvider | SeedSessionProvider {
  const missing = missingProviderMethods(target);
  if (missing.length === 0) return;
  throw new ArborTypeError(
    "INVALID_TARGET",
    `new Session() requires a SessionProvider (${PROVIDER_FORMS}; a \`sql\` store goes to Session.create()); ${whatItIs(target, missing)}`,
  );
}

/**
 * `new Session(target)`'s provider: a `SessionProvider` as it is, a seed-shaped one
 * (`appendMessage` returning `boolean | void`, no `writeMessages`) adapted to the one write
 * (seed-provider.ts). Anything else throws `INVALID_TARGET` naming the accepted forms.
 */
export function sessionProviderOf(target: unknown): SessionProvider {
  assertSessionProvider(target);
  return adaptSeedProvider(target);
}

// --- Internal helpers ---

/** The providers a user is most likely to want, PostgreSQL's named so a pg client finds its way. */
const PROVIDER_FORMS =
  "InMemorySessionProvider, new PostgresSessionProvider(client, sessionId), or backend.session(sessionId) of a Backend such as postgresBackend(client) from arbor-memory/postgres";

const SESSION_CREATE_FORMS = `Session.create() requires a SqlProvider or SessionProvider: a \`sql\` store (a Durable Object, openSqlite()) or a SessionProvider (${PROVIDER_FORMS})`;

const BACKEND_FORMS =
  "a Backend (postgresBackend(client) from arbor-memory/postgres, sqliteBackend(file) from arbor-memory/sqlite, sqlBackend(store), memoryBackend(), or your own: docs/custom-providers.md) or a `sql` store (a Durable Object, openSqlite())";

/** A `Backend`, or a `sql` store as the sql backend; `null` for anything else. */
function storeSeedOf(target: unknown): BackendSeed | null {
  if (isSqlProvider(target))
    return {
      backend: sqlBackend(target),
      // Through the store itself, so a Durable Object's `broadcast` hears status events.
      sessionTarget: () => ({ target, scope: true }),
    };
  if (isBackend(target))
    return {
      backend: target,
      sessionTarget: (sessionId) => ({
        target: target.session(sessionId),
        scope: false,
      }),
    };
  return null;
}

function missingProviderMethods(target: unknown): string[] {
  if (typeof target !== "object" || target === null)
    return [...REQUIRED_PROVIDER_METHODS];
  const has = (name: string) =>
    typeof (target as Record<string, unknown>)[name] === "function";
  // A seed-shaped provider writes with `appendMessage` instead (adaptSeedProvider).
  return REQUIRED_PROVIDER_METHODS.filter(
    (name) => !has(name) && !(name === "writeMessages" && has("appendMessage")),
  ).map((name) =>
    name === "writeMessages"
      ? "writeMessages (or the seed's appendMessage)"
      : name,
  );
}

/**
 * What the refused target is, in a few words: its type, or (where a provider is accepted) the
 * provider methods it lacks.
 */
function whatItIs(target: unknown, missing: readonly string[] | null): string {
  if (target === null) return "got null";
  if (typeof target !== "object" && typeof target !== "function")
    return `got ${typeof target}`;
  if (isBackend(target))
    return "got a Backend, a whole store: open one of its sessions with Session.create(backend.session(sessionId))";
  const kind = typeof target === "function" ? "a function" : "an object";
  return missing === null
    ? `got ${kind} that is neither`
    : `got ${kind} with no \`sql\` tagged template, lacking the SessionProvider methods ${missing.join(", ")}`;
}
