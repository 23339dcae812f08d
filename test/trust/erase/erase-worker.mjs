// The worker the workerd erase test bundles: a Durable Object that runs one erase scenario
// (erase-scenarios.ts) per request on its own SQLite (`ctx.storage.sql`, the shape of an Agents
// SDK `Agent`), with a SqlAuditSink beside the sessions, and dumps every table it can read.
import { DurableObject } from "cloudflare:workers";
import { SessionManager, SqlAuditSink } from "../../../src/session/index.js";
import { ERASE_SCENARIOS } from "../../../src/testing/erase/erase-scenarios.js";

export class EraseRuns extends DurableObject {
  sql(strings, ...values) {
    return [...this.ctx.storage.sql.exec(strings.join("?"), ...values)];
  }

  async fetch(request) {
    const { scenario } = await request.json();
    const sink = new SqlAuditSink(this);
    try {
      await ERASE_SCENARIOS[scenario]({
        manager: () =>
          SessionManager.create(this).withContext("memory").withAudit(sink),
        auditCount: (id) => sink.list(id).length,
        dump: () => this.dump(),
        dumpWithoutAudit: () =>
          this.dump()
            .then((dump) => dump.split("\n"))
            .then((lines) =>
              lines
                .filter((line) => !line.startsWith("arbor_audit_log:"))
                .join("\n"),
            ),
        expects: { separateIndex: true, changeLog: true },
      });
      return Response.json({ ok: true });
    } catch (error) {
      return Response.json({
        ok: false,
        message: String(error?.stack ?? error),
      });
    }
  }

  /**
   * Every row of every table but workerd's own (`_cf_*`), BLOBs as Latin-1 text, as committed:
   * FTS5 applies the deletes it holds in memory when the request's implicit transaction commits.
   */
  async dump() {
    await this.ctx.storage.sync();
    const names = this.sql`SELECT name FROM sqlite_master WHERE type = 'table'`
      .map((row) => row.name)
      .filter(
        (name) => !name.startsWith("_cf_") && !name.startsWith("sqlite_"),
      );
    const lines = [];
    for (const name of names) {
      const cursor = this.ctx.storage.sql.exec(
        `SELECT * FROM "${name.replaceAll('"', '""')}"`,
      );
      for (const row of cursor.raw()) {
        const cells = row.map((value) =>
          value instanceof ArrayBuffer
            ? String.fromCharCode(...new Uint8Array(value))
            : String(value),
        );
        lines.push(`${name}: ${cells.join(" | ")}`);
      }
    }
    return lines.join("\n");
  }
}

export default {
  fetch(request, env) {
    return env.RUNS.get(env.RUNS.idFromName("erase")).fetch(request);
  },
};
