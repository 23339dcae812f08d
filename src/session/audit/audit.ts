import type { SqlProvider } from "../sql-provider.js";
import type { MaybePromise } from "../types.js";

/** One recorded event (SPEC §15.5). */
export interface AuditEvent {
  sessionId: string;
  /** ISO-8601 UTC with milliseconds. */
  at: string;
  type:
    | "append"
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

/** Table-name characters allowed in the DDL; the name is spliced, so it is checked. */
const TABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Stores events in a table of a `sql` store (SQLite, Durable Object):
 * `(id, session_id, type, payload JSON, created_at)`.
 */
export class SqliteAuditSink implements AuditSink {
  private readonly table: string;
  private ready = false;

  constructor(
    private readonly agent: SqlProvider,
    options: { table?: string } = {},
  ) {
    const table = options.table ?? "arbor_audit_log";
    if (!TABLE_NAME.test(table)) {
      throw new Error(
        `[arbor] [audit] Invalid table name "${table}": use letters, digits and _`,
      );
    }
    this.table = table;
  }

  record(event: AuditEvent): void {
    this.ensureTable();
    const payload = JSON.stringify(event.payload ?? null);
    // The table name cannot be a bound parameter: the checked name is part of the statement text.
    const strings = Object.assign(
      [
        `INSERT INTO ${this.table} (id, session_id, type, payload, created_at) VALUES (`,
        ", ",
        ", ",
        ", ",
        ", ",
        ")",
      ],
      { raw: [] as string[] },
    ) as unknown as TemplateStringsArray;
    this.agent.sql(
      strings,
      crypto.randomUUID(),
      event.sessionId,
      event.type,
      payload,
      event.at,
    );
  }

  /** Events of one session, oldest first. */
  list(sessionId: string): AuditEvent[] {
    this.ensureTable();
    const strings = Object.assign(
      [
        `SELECT session_id, type, payload, created_at FROM ${this.table} WHERE session_id = `,
        " ORDER BY rowid",
      ],
      { raw: [] as string[] },
    ) as unknown as TemplateStringsArray;
    return this.agent
      .sql<{
        session_id: string;
        type: AuditEvent["type"];
        payload: string;
        created_at: string;
      }>(strings, sessionId)
      .map((row) => ({
        sessionId: row.session_id,
        type: row.type,
        payload: JSON.parse(row.payload) as unknown,
        at: row.created_at,
      }));
  }

  private ensureTable(): void {
    if (this.ready) return;
    const strings = Object.assign(
      [
        `CREATE TABLE IF NOT EXISTS ${this.table} (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, type TEXT NOT NULL, payload TEXT NOT NULL, created_at TEXT NOT NULL)`,
      ],
      { raw: [] as string[] },
    ) as unknown as TemplateStringsArray;
    this.agent.sql(strings);
    this.ready = true;
  }
}

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
