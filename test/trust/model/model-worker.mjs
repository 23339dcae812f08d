// The worker the workerd property test bundles: a Durable Object that runs the model-based
// sequences on its own SQLite (`ctx.storage.sql`, the shape of an Agents SDK `Agent`).
import { DurableObject } from "cloudflare:workers";
import { SessionManager } from "../../../src/session/index.js";
import { checkAgainstModel } from "./model-run.js";

export class ModelRuns extends DurableObject {
  sql(strings, ...values) {
    return [...this.ctx.storage.sql.exec(strings.join("?"), ...values)];
  }

  async fetch(request) {
    const { runs, seed } = await request.json();
    try {
      await checkAgainstModel(
        { manager: () => SessionManager.create(this) },
        { runs, seed },
      );
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
    return env.RUNS.get(env.RUNS.idFromName("model")).fetch(request);
  },
};
