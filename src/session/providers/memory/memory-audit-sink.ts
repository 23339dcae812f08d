import type { AuditEvent, AuditSink } from "../../contracts/audit.js";

/** Keeps events in an array: for tests and debugging. */
export class InMemoryAuditSink implements AuditSink {
  readonly events: AuditEvent[] = [];

  record(event: AuditEvent): void {
    this.events.push(structuredClone(event));
  }

  /** Events of one session, in order. */
  forSession(sessionId: string): AuditEvent[] {
    return this.events.filter((event) => event.sessionId === sessionId);
  }
}
