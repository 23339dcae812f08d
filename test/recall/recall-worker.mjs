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

  async fetch(request) {
    const { scenario } = await request.json();
    try {
      await RECALL_SCENARIOS[scenario]({
        manager: () => SessionManager.create(this),
        rows: async (sessionId) => {
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
