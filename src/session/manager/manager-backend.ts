/**
 * What a SessionManager runs on. `SessionManager.create(target)` takes a `Backend` or a `sql`
 * store, mapped to its backend in seed-targets.ts; everything in the manager (erase, prune,
 * embeddings, search) reaches the store only through the `Backend` contract.
 */
import type { AuditSink } from "../contracts/audit.js";
import type { Backend } from "../contracts/backend.js";
import type { SessionInfo } from "../contracts/session-info.js";
import type { SessionRegistry } from "../contracts/registry.js";
import type { SqlProvider } from "../contracts/sql-provider.js";
import { ArborError } from "../errors/index.js";
import { memoryBackend } from "../../backends/memory/memory-backend.js";
import { backendSeed } from "../facade/seed-targets.js";
import { Session } from "../facade/session.js";
import type { CreateSessionOptions } from "./manager-options.js";
import type { ManagedSession } from "./session-cache.js";

/**
 * What a manager runs on: the registry and a way to open a session by id. A custom store can be
 * plugged in as `new SessionManager({ registry, openSession })`; with `backend` (or through
 * `SessionManager.create(backend)`) it also gets erase, prune and embeddings.
 */
export interface ManagerBackend {
  registry: SessionRegistry;
  /** A Session in builder state over this store, for the id. */
  openSession(sessionId: string): Session;
  /** The whole store: what erase, prune and embeddings use. Without it they throw `NOT_SUPPORTED`. */
  backend?: Backend;
}

/**
 * What the manager's modules (lineage, snapshots) use of the manager itself: its registry, and
 * sessions opened and configured by it, so copies get the same blocks, hooks and cache.
 */
export interface ManagerHost {
  readonly registry: SessionRegistry;
  getSession(id: string): Session;
  /** The manager's Session for an id with its seam: how erase, prune and recall reach its state. */
  managed(id: string): ManagedSession;
  create(name: string, options?: CreateSessionOptions): Promise<SessionInfo>;
  delete(id: string): Promise<boolean>;
  /** For erase, prune and embeddings: the store, when the manager has one. */
  backend?: Backend | undefined;
  /** For erase and prune: the context rows a session owns, the audit sink, the cache. */
  ownedContextKeys?(id: string): string[] | Promise<string[]>;
  auditSink?(): AuditSink | null;
  forget?(id: string): void;
}

/**
 * The manager's backend for `SessionManager.create(target)`: any `Backend`, or a `sql` store.
 * Anything else (a PostgreSQL client included: `postgresBackend(client)` wraps it) throws
 * `INVALID_TARGET` naming the accepted forms.
 */
export function managerBackendFor(
  target: SqlProvider | Backend,
): ManagerBackend {
  const { backend, sessionTarget } = backendSeed(target);
  return {
    backend,
    registry: backend.registry,
    openSession: (sessionId) => {
      const { target: opened, scope } = sessionTarget(sessionId);
      const session = Session.create(opened);
      return scope ? session.forSession(sessionId) : session;
    },
  };
}

/** A backend whose registry and sessions share one in-process store. */
export function inMemoryManagerBackend(): ManagerBackend {
  return managerBackendFor(memoryBackend());
}

/** The manager's store, or `NOT_SUPPORTED` naming what needs it. */
export function requireBackend(host: ManagerHost, caller: string): Backend {
  if (host.backend) return host.backend;
  throw new ArborError(
    "NOT_SUPPORTED",
    `[arbor] ${caller} needs a store behind the manager: SessionManager.create(target) or a ManagerBackend with \`backend\``,
  );
}
