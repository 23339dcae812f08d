import { describe, expect, it } from "vitest";
import { SessionManager, SqlAuditSink } from "../../src/session/index.js";
import { openSqlite } from "../../src/sqlite/index.js";

describe("SqlAuditSink", () => {
  it("stores a managed session's events in its table, in order, beside the session data", async () => {
    const db = openSqlite(":memory:");
    const sink = new SqlAuditSink(db);
    const manager = SessionManager.create(db).withAudit(sink);
    const info = await manager.create("audited");
    await manager.append(info.id, {
      id: "u1",
      role: "user",
      parts: [{ type: "text", text: "hi" }],
    });
    await manager.deleteMessages(info.id, ["u1"]);
    await manager.getSession(info.id).flushAudit();
    const events = sink.list(info.id);
    expect(events.map((event) => event.type)).toEqual(["append", "delete"]);
    expect(events[1]!.payload).toEqual({ ids: ["u1"] });
    const columns = db.sql<{
      name: string;
    }>`SELECT name FROM pragma_table_info('arbor_audit_log')`;
    expect(columns.map((column) => column.name)).toEqual([
      "id",
      "session_id",
      "type",
      "payload",
      "created_at",
    ]);
  });

  it("uses a custom table and refuses names that are not identifiers", () => {
    const db = openSqlite(":memory:");
    const sink = new SqlAuditSink(db, { table: "my_audit" });
    sink.record({
      sessionId: "s",
      at: "2026-01-01T00:00:00.000Z",
      type: "clear",
      payload: {},
    });
    expect(sink.list("s")).toEqual([
      {
        sessionId: "s",
        at: "2026-01-01T00:00:00.000Z",
        type: "clear",
        payload: {},
      },
    ]);
    expect(() => new SqlAuditSink(db, { table: "x; DROP TABLE y" })).toThrow(
      /Invalid table name/,
    );
  });
});
