// Idempotency over real processes: two `arbor serve` over one PostgreSQL database, the checks of
// the server fault harness (bench/server-idempotency-faults.mjs): requests with one
// Idempotency-Key sent at once to both processes on every keyed write route, answers dropped
// (the connection cut as the answer arrives) and retried with and without a key, and one file
// imported at once without a key. Each makes one effect, and one key gets one answer.
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
  it("one key at once, dropped answers and keyless imports each make one effect with one answer", async () => {
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
    expect(checks.map((check) => check.name)).toHaveLength(10);
  }, 120_000);
});
