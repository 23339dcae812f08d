// Idempotency over real processes: two `arbor serve` over one PostgreSQL database, the checks of
// the server fault harness (bench/server-idempotency-faults.mjs): requests with one
// Idempotency-Key sent at once to both processes on every keyed write route; ambiguous failures
// through a real TCP proxy that drops answers (bench/answer-dropping-proxy.mjs: the client's
// connection closed once the request is forwarded, or while the answer comes back, the server
// finishing its work) on every write route (create, append, import, compaction overlay, fork,
// block PUT and revert), retried with and without a key; and one file imported at once without a
// key. Each makes one effect (read back from the store), one key gets one answer (the dropped one
// included), and without a key each route keeps its documented rule.
import { expect, it } from "vitest";
import { startServe, type ServeProcess } from "../cli/support/cli.js";
import { describePostgres, PG_URL } from "../providers/postgres-database.js";

interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

interface Harness {
  idempotencyFaults(options: {
    pg: string;
    serve(args: string[]): Promise<{ url: string; child: unknown }>;
    stopAll(servers: unknown[]): Promise<unknown>;
  }): Promise<Check[]>;
}

describePostgres("idempotency over two arbor serve processes", () => {
  it("one key at once, answers dropped by a proxy on every write route and keyless imports each make one effect with one answer", async () => {
    const harness = (await import(
      new URL("../../bench/server-idempotency-faults.mjs", import.meta.url).href
    )) as Harness;
    const started: ServeProcess[] = [];
    const checks = await harness.idempotencyFaults({
      pg: PG_URL!,
      serve: async (args) => {
        const server = await startServe([...args, "--skip-sample"]);
        started.push(server);
        return server;
      },
      stopAll: () => Promise.all(started.map((server) => server.stop())),
    });
    expect(checks.filter((check) => !check.ok)).toEqual([]);
    const dropped = checks.filter((check) =>
      check.name.startsWith("answer dropped"),
    );
    // 7 write routes x before/while the answer x with/without a key.
    expect(dropped).toHaveLength(28);
    for (const route of [
      "create",
      "append",
      "import",
      "compaction overlay",
      "fork",
      "block PUT",
      "block revert",
    ])
      expect(
        dropped.filter((check) => check.name.endsWith(`: ${route}`)),
      ).toHaveLength(4);
    // One key at once on every keyed write route, the blocks' two included.
    expect(
      checks
        .filter((check) => check.name.includes("at once with one key"))
        .map((check) => check.name.split(": ")[1]),
    ).toEqual([
      "create",
      "append",
      "import",
      "fork",
      "overlay",
      "block PUT",
      "block revert",
    ]);
    expect(checks).toHaveLength(36);
  }, 120_000);
});
