import type { AuditSink } from "../contracts/audit.js";
import type { SessionInfo } from "../contracts/session-info.js";
import type { SessionRegistry } from "../contracts/registry.js";
import { isSqlProvider, type SqlProvider } from "../contracts/sql-provider.js";
import { ArborTypeError } from "../errors/index.js";
import { InMemorySessionProvider } from "../../backends/memory/index.js";
import { MemorySessionRegistry } from "../../backends/memory/memory-registry.js";
import { MemoryStore } from "../../backends/memory/memory-store.js";
import {
  isPostgresClient,
  type PostgresClient,
} from "../../backends/postgres/postgres-client.js";
import { PostgresSessionProvider } from "../../backends/postgres/postgres-session-provider.js";
import { PostgresSessionRegistry } from "../../backends/postgres/postgres-registry.js";
import { SqlSessionRegistry } from "../../backends/sql/sql-registry.js";
import { Session } from "../session.js";
import type { CreateSessionOptions } from "./manager-options.js";

/** What a manager runs on: the registry and a way to open a session by id. */
export interface ManagerBackend {
  registry: SessionRegistry;
  /** A Session in builder state over this store, for the id. */
  openSession(sessionId: string): Session;
  /** The store itself, for erase and prune (manager/erase.ts); absent on custom backends. */
  storage?: ManagerStorage;
}

/** The store under a built-in backend. */
export type ManagerStorage =
  | { kind: "memory"; store: MemoryStore }
  | { kind: "sql"; agent: SqlProvider }
  | { kind: "postgres"; client: PostgresClient };

/**
 * What the manager's modules (lineage, snapshots) use of the manager itself: its registry, and
 * sessions opened and configured by it, so copies get the same blocks, hooks and cache.
 */
export interface ManagerHost {
  readonly registry: SessionRegistry;
  getSession(id: string): Session;
  create(name: string, options?: CreateSessionOptions): Promise<SessionInfo>;
  delete(id: string): Promise<boolean>;
  /** For erase and prune: the store, the context rows a session owns, the audit sink, the cache. */
  storage?: ManagerStorage | undefined;
  ownedContextKeys?(id: string): string[];
  auditSink?(): AuditSink | null;
  forget?(id: string): void;
}

/** The backend for `SessionManager.create(target)`: a `sql` store or a PostgreSQL client. */
export function backendFor(
  target: SqlProvider | PostgresClient,
): ManagerBackend {
  if (isSqlProvider(target)) {
    return {
      storage: { kind: "sql", agent: target },
      registry: new SqlSessionRegistry(target),
      openSession: (sessionId) => Session.create(target).forSession(sessionId),
    };
  }
  if (isPostgresClient(target)) {
    const root = new PostgresSessionProvider(target);
    return {
      storage: { kind: "postgres", client: target },
      registry: new PostgresSessionRegistry(target),
      openSession: (sessionId) => Session.create(root).forSession(sessionId),
    };
  }
  throw new ArborTypeError(
    "INVALID_TARGET",
    "[arbor] SessionManager.create() needs a `sql` store (openSqlite(), a Durable Object) or a PostgreSQL client (pg Pool or Client, or a connection with `execute`); use SessionManager.inMemory() for tests",
  );
}

/** A backend whose registry and sessions share one in-process store. */
export function inMemoryBackend(): ManagerBackend {
  const store = new MemoryStore();
  const root = new InMemorySessionProvider({}, store);
  return {
    storage: { kind: "memory", store },
    registry: new MemorySessionRegistry(store),
    openSession: (sessionId) => Session.create(root).forSession(sessionId),
  };
}
