// `arbor serve`'s pool, limits and browser options: flags win over the environment, which wins
// over defaults sized from the machine; a value that is not a number is a usage error.
import { describe, expect, it } from "vitest";
import { UsageError } from "../../src/cli/args.js";
import { serveTuning } from "../../src/cli/serve-tuning.js";

const none = { positionals: [], values: {} };

describe("serveTuning", () => {
  it("sizes the pool from the CPUs, within 4 to 20, the in-flight limit from the pool and the queue's memory bound from that", () => {
    expect(serveTuning(none, {}, 1).pool.max).toBe(4);
    expect(serveTuning(none, {}, 2).pool.max).toBe(6);
    expect(serveTuning(none, {}, 64).pool.max).toBe(20);
    const tuning = serveTuning(none, {}, 2);
    expect(tuning).toEqual({
      pool: { max: 6, acquireTimeoutMs: 5_000, statementTimeoutMs: 15_000 },
      maxInFlight: 24,
      maxQueued: 384,
      queueTargetMs: 1_000,
      requestTimeoutMs: 30_000,
      bodyTimeoutMs: 30_000,
      readyStallMs: 10_000,
      shutdownGraceMs: 10_000,
      shutdownIdleMs: 1_000,
      cors: [],
      hosts: [],
    });
  });

  it("reads the environment, and flags over it", () => {
    const env = {
      ARBOR_PG_POOL_SIZE: "8",
      ARBOR_PG_STATEMENT_TIMEOUT_MS: "0",
      ARBOR_CORS: "https://a.example, https://b.example",
      ARBOR_ALLOWED_HOSTS: "arbor.internal",
      ARBOR_QUEUE_TARGET_MS: "2000",
    };
    const tuning = serveTuning(
      {
        positionals: [],
        values: {
          "pool-size": "3",
          "shutdown-grace": "500",
          "shutdown-idle": "250",
          "queue-target": "250",
        },
      },
      env,
      2,
    );
    expect(tuning.pool).toEqual({
      max: 3,
      acquireTimeoutMs: 5_000,
      statementTimeoutMs: 0,
    });
    expect(tuning.maxInFlight).toBe(12);
    expect(tuning.maxQueued).toBe(192);
    expect(tuning.queueTargetMs).toBe(250);
    expect(tuning.shutdownGraceMs).toBe(500);
    expect(tuning.shutdownIdleMs).toBe(250);
    expect(tuning.cors).toEqual(["https://a.example", "https://b.example"]);
    expect(tuning.hosts).toEqual(["arbor.internal"]);
  });

  it("refuses values that are not integers, naming the flag or variable", () => {
    expect(() =>
      serveTuning({ positionals: [], values: { "pool-size": "0" } }, {}, 2),
    ).toThrow(UsageError);
    expect(() =>
      serveTuning(none, { ARBOR_REQUEST_TIMEOUT_MS: "soon" }, 2),
    ).toThrow(/ARBOR_REQUEST_TIMEOUT_MS/);
  });
});
