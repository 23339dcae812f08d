/** The audit contract: where a session's events go. */
import type { AuditEraseTarget } from "./erase.js";
import type { MaybePromise } from "./types.js";

/** One recorded event (docs/behavior/events-and-audit.md). */
export interface AuditEvent {
  sessionId: string;
  /** ISO-8601 UTC with milliseconds. */
  at: string;
  type:
    | "append"
    | "import"
    | "update"
    | "delete"
    | "clear"
    | "compaction"
    | "prompt"
    | "context"
    | "skill-unload";
  payload: unknown;
}

/** Where audit events go. Recording never feeds back into the history. */
export interface AuditSink {
  record(event: AuditEvent): MaybePromise<void>;
  /**
   * Optional: forgets the events of `target.sessionId`: all of them (`ids: null`), or those whose
   * payload mentions one of `ids` (an erased message or overlay). Returns how many went; with
   * `dryRun`, how many would. `SessionManager.erase()` calls it; without it the receipt lists the
   * sink under `notCovered` (docs/behavior/erase-and-retention.md).
   */
  erase?(
    target: AuditEraseTarget,
    options?: { dryRun?: boolean },
  ): MaybePromise<number>;
}

export interface AuditOptions {
  /** Also record what was sent to the model (`session.recordContext()`). Default false. */
  includeContext?: boolean;
}

/** What a turn sent to the model, for `recordContext()`. */
export interface RecordedContext {
  system: string;
  messages: unknown[];
  tools?: unknown;
  response?: unknown;
}
