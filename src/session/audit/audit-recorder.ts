import type {
  AuditEvent,
  AuditOptions,
  AuditSink,
} from "../contracts/audit.js";

/**
 * Sends a session's events to its sink in order, without making the primary operation wait or
 * fail: a failing sink is logged once and skipped.
 */
export class AuditRecorder {
  private tail: Promise<void> = Promise.resolve();
  private warned = false;

  constructor(
    readonly sink: AuditSink,
    readonly options: AuditOptions,
  ) {}

  record(sessionId: string, type: AuditEvent["type"], payload: unknown): void {
    const event: AuditEvent = {
      sessionId,
      at: new Date().toISOString(),
      type,
      payload,
    };
    this.tail = this.tail.then(async () => {
      try {
        await this.sink.record(event);
      } catch (error) {
        if (!this.warned) {
          this.warned = true;
          console.warn(
            `[arbor] [audit] The audit sink failed; events are skipped: ${(error as Error)?.message ?? error}`,
          );
        }
      }
    });
  }

  /** Resolves when every event recorded so far has reached the sink. */
  flush(): Promise<void> {
    return this.tail;
  }
}
