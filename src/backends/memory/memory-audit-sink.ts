import type { AuditEvent, AuditSink } from "../../session/contracts/audit.js";
import type { AuditEraseTarget } from "../../session/contracts/erase.js";
import { auditEventErased } from "../../session/erase/audit-erase.js";

/** Keeps events in an array: for tests and debugging. */
export class InMemoryAuditSink implements AuditSink {
  readonly events: AuditEvent[] = [];

  record(event: AuditEvent): void {
    this.events.push(structuredClone(event));
  }

  /** Forgets the target's events (see `AuditSink.erase`); returns how many went. */
  erase(target: AuditEraseTarget, options: { dryRun?: boolean } = {}): number {
    const doomed = this.events.filter((event) =>
      auditEventErased(event, target),
    );
    if (!options.dryRun) {
      const kept = this.events.filter((event) => !doomed.includes(event));
      this.events.splice(0, this.events.length, ...kept);
    }
    return doomed.length;
  }

  /** Events of one session, in order. */
  forSession(sessionId: string): AuditEvent[] {
    return this.events.filter((event) => event.sessionId === sessionId);
  }
}
