import type { Session } from "../facade/session.js";
import type { SessionSeam } from "../facade/session-seam.js";

/**
 * A Session the manager opened, with its seam (session-seam.ts): the public object callers get,
 * and the declared way the manager's parts reach its state.
 */
export interface ManagedSession {
  readonly session: Session;
  readonly seam: SessionSeam;
}

const DEFAULT_CACHED_SESSIONS = 256;

/**
 * The Session objects a manager keeps open, least recently used dropped first once there are more
 * than `maxSize`. A dropped Session still works for whoever holds it; the next `get()` opens a
 * fresh one over the same rows.
 */
export class SessionCache {
  private readonly sessions = new Map<string, ManagedSession>();
  private readonly maxSize: number;

  constructor(
    maxSize: number | undefined,
    private readonly open: (sessionId: string) => ManagedSession,
  ) {
    this.maxSize = Math.max(1, maxSize ?? DEFAULT_CACHED_SESSIONS);
  }

  /** The cached Session for the id, or a newly opened one. */
  get(sessionId: string): ManagedSession {
    const cached = this.sessions.get(sessionId);
    if (cached) {
      // A Map iterates in insertion order: re-inserting on access keeps the oldest first.
      this.sessions.delete(sessionId);
      this.sessions.set(sessionId, cached);
      return cached;
    }
    const session = this.open(sessionId);
    this.sessions.set(sessionId, session);
    if (this.sessions.size > this.maxSize) {
      this.sessions.delete(this.sessions.keys().next().value as string);
    }
    return session;
  }

  delete(sessionId: string): void {
    this.sessions.delete(sessionId);
  }

  /** Every cached Session, for builder settings that also apply to open sessions. */
  values(): IterableIterator<ManagedSession> {
    return this.sessions.values();
  }
}
