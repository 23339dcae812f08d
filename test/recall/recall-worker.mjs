// The worker the workerd recall test bundles: a Durable Object that runs one recall scenario
// (recall-scenarios.ts) per request on its own SQLite (`ctx.storage.sql`), where no extension
// can be loaded, so semantic search is the exact scan.
import { DurableObject } from "cloudflare:workers";
import { SessionManager } from "../../src/session/index.js";
import { RECALL_SCENARIOS } from "./recall-scenarios.js";

export class RecallRuns extends DurableObject {
  sql(strings, ...values) {
    return [...this.ctx.storage.sql.exec(strings.join("?"), ...values)];
  }

  /** The embedding tables and triggers of the object's SQLite, sorted. */
  schema() {
    return this.sql([
      "SELECT name FROM sqlite_master WHERE name LIKE 'arbor\\_embed%' ESCAPE '\\' ORDER BY name",
    ]).map((row) => row.name);
  }

  async fetch(request) {
    const { scenario } = await request.json();
    try {
      await RECALL_SCENARIOS[scenario]({
        manager: () => SessionManager.create(this),
        rows: async (sessionId) => {
          if (this.schema().length === 0)
            return { vectors: 0, queued: 0, models: [] };
          const count = (table) =>
            this.sql(
              [`SELECT COUNT(*) AS n FROM ${table} WHERE session_id = `, ""],
              sessionId,
            )[0].n;
          return {
            vectors: count("arbor_embeddings"),
            queued: count("arbor_embedding_queue"),
            models: this.sql(
              [
                "SELECT DISTINCT model FROM arbor_embeddings WHERE session_id = ",
                " ORDER BY model",
              ],
              sessionId,
            ).map((row) => row.model),
          };
        },
        totals: async () => {
          const tables = this.schema();
          const count = (table) =>
            tables.includes(table)
              ? this.sql([`SELECT COUNT(*) AS n FROM ${table}`])[0].n
              : 0;
          return {
            vectors: count("arbor_embeddings"),
            queued: count("arbor_embedding_queue"),
          };
        },
        schema: async () => this.schema(),
      });
      return Response.json({ ok: true });
    } catch (error) {
      return Response.json({
        ok: false,
        message: String(error?.stack ?? error),
      });
    }
  }
}

export default {
  fetch(request, env) {
    return env.RUNS.get(env.RUNS.idFromName("recall")).fetch(request);
  },
};
