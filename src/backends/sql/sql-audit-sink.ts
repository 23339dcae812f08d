import { mapSqlErrors } from "./sql-errors.js";
import { invalidArgument } from "../../session/errors/index.js";
import type { AuditEvent, AuditSink } from "../../session/contracts/audit.js";
import type { SqlProvider } from "../../session/contracts/sql-provider.js";
import type { AuditEraseTarget } from "../../session/contracts/erase.js";
import { auditEventErased } from "../../session/erase/audit-erase.js";

/** Table-name characters allowed in the DDL; the name is spliced, so it is checked. */
const TABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Stores events in a table of a `sql` store (SQLite, Durable Object):
 * `(id, session_id, type, payload JSON, created_at)`.
 */
export class SqlAuditSink implements AuditSink {
  private readonly table: string;
  private ready = false;

  constructor(
    private readonly agent: SqlProvider,
    options: { table?: string } = {},
  ) {
    const table = options.table ?? "arbor_audit_log";
    if (!TABLE_NAME.test(table)) {
      throw invalidArgument(
        `[audit] Invalid table name "${table}": use letters, digits and _`,
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
    ) satisfies TemplateStringsArray;
    this.agent.sql(
      strings,
      crypto.randomUUID(),
      event.sessionId,
      event.type,
      payload,
      event.at,
    );
  }

  /** Forgets the target's events (see `AuditSink.erase`); returns how many went. */
  erase(target: AuditEraseTarget, options: { dryRun?: boolean } = {}): number {
    this.ensureTable();
    const rows = this.agent.sql<{ id: string; payload: string }>(
      statement(
        `SELECT id, payload FROM ${this.table} WHERE session_id = `,
        "",
      ),
      target.sessionId,
    );
    const doomed = rows
      .filter((row) =>
        auditEventErased(
          { sessionId: target.sessionId, payload: JSON.parse(row.payload) },
          target,
        ),
      )
      .map((row) => row.id);
    if (!options.dryRun && doomed.length > 0) {
      this.agent.sql(
        statement(
          `DELETE FROM ${this.table} WHERE id IN (SELECT value FROM json_each(`,
          "))",
        ),
        JSON.stringify(doomed),
      );
    }
    return doomed.length;
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
    ) satisfies TemplateStringsArray;
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
    ) satisfies TemplateStringsArray;
    this.agent.sql(strings);
    this.ready = true;
  }
}

/** A statement with one bound value between `before` and `after` (the checked table name is spliced in). */
function statement(before: string, after: string): TemplateStringsArray {
  return Object.assign([before, after], {
    raw: [] as string[],
  });
}

// What leaves a method is Arbor's error, the store's own as its cause (sql-errors.ts).
mapSqlErrors(SqlAuditSink.prototype);
