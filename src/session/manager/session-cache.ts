import type { Session } from "../session.js";

const DEFAULT_CACHED_SESSIONS = 256;

/**
 * The Session objects a manager keeps open, least recently used dropped first once there are more
 * than `maxSize`. A dropped Session still works for whoever holds it; the next `get()` opens a
 * fresh one over the same rows.
 */
export class SessionCache {
  private readonly sessions = new Map<string, Session>();
  private readonly maxSize: number;

  constructor(
    maxSize: number | undefined,
    private readonly open: (sessionId: string) => Session,
  ) {
    this.maxSize = Math.max(1, maxSize ?? DEFAULT_CACHED_SESSIONS);
  }

  /** The cached Session for the id, or a newly opened one. */
  get(sessionId: string): Session {
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
  values(): IterableIterator<Session> {
    return this.sessions.values();
  }
}
