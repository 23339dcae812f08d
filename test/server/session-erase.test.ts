// DELETE /v1/sessions/{id} erases (manager.erase), so what a delete of the registry row alone
// would leave goes too: the session's embeddings, its attachments and its audit events
// (docs/server.md#sessions). Checked on a real SQLite store by reading every table afterwards.
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/server/index.js";
import { SessionManager, SqlAuditSink } from "../../src/session/index.js";
import { openSqlite, type SqliteHandle } from "../../src/sqlite/index.js";
import { fakeEmbedder } from "../../src/testing/index.js";
import { client, text } from "./support/client.js";

/** Every row of every table that names the session id or holds the attachment's bytes. */
function rowsAbout(db: SqliteHandle, needles: string[]): string[] {
  const tables = db.sql<{
    name: string;
  }>`SELECT name FROM sqlite_master WHERE type = 'table'`;
  return tables.flatMap(({ name }) =>
    db.database
      .prepare(`SELECT * FROM "${name.replaceAll('"', '""')}"`)
      .all()
      .map((row) => `${name}: ${JSON.stringify(row)}`)
      .filter((row) => needles.some((needle) => row.includes(needle))),
  );
}

describe("DELETE /v1/sessions/{id} erases the session", () => {
  it("removes its messages, embeddings, attachments and audit events, and leaves other sessions whole", async () => {
    const db = openSqlite(":memory:");
    try {
      const manager = SessionManager.create(db)
        .withEmbeddings(fakeEmbedder())
        .withAudit(new SqlAuditSink(db));
      const call = client(createApp({ manager }));
      const ids: string[] = [];
      for (const name of ["Erased", "Kept"]) {
        const { id } = (await call("POST", "/v1/sessions", { json: { name } }))
          .body;
        ids.push(id);
        // A file stored as an attachment (its data leaves the message row).
        const data = Buffer.from(`${name} attachment ${"x".repeat(4096)}`);
        await call("POST", `/v1/sessions/${id}/messages`, {
          json: {
            message: {
              id: `${name}-u1`,
              role: "user",
              parts: [
                { type: "text", text: `${name} plans the trip` },
                {
                  type: "file",
                  mediaType: "text/plain",
                  url: `data:text/plain;base64,${data.toString("base64")}`,
                },
              ],
            },
          },
        });
        await call("POST", `/v1/sessions/${id}/messages`, {
          json: { message: text(`${name}-a1`, `${name} answers`) },
        });
      }
      await manager.flushEmbeddings();
      const [erased, kept] = ids as [string, string];
      const before = rowsAbout(db, [erased]);
      // The store held the session in several places the registry row alone does not cover.
      for (const table of ["arbor_audit_log", "assistant_messages"])
        expect(before.some((row) => row.startsWith(`${table}:`))).toBe(true);
      expect(before.some((row) => /embedding/i.test(row))).toBe(true);
      const attachmentsBefore = db.sql<{
        n: number;
      }>`SELECT COUNT(*) AS n FROM arbor_attachments`[0]!.n;
      expect(attachmentsBefore).toBe(2);
      const keptBefore = rowsAbout(db, [kept]).filter(
        (row) => !row.startsWith("arbor_audit_log:"),
      );

      expect((await call("DELETE", `/v1/sessions/${erased}`)).status).toBe(204);
      // No row anywhere names it or holds its text.
      expect(
        rowsAbout(db, [erased, "Erased plans", "Erased attachment"]),
      ).toEqual([]);
      expect(
        db.sql<{ n: number }>`SELECT COUNT(*) AS n FROM arbor_attachments`[0]!
          .n,
      ).toBe(1);
      expect(
        rowsAbout(db, [kept]).filter(
          (row) => !row.startsWith("arbor_audit_log:"),
        ),
      ).toEqual(keptBefore);
      expect((await call("GET", `/v1/sessions/${erased}`)).status).toBe(404);
      expect((await call("DELETE", `/v1/sessions/${erased}`)).status).toBe(404);
    } finally {
      db.close();
    }
  });
});
