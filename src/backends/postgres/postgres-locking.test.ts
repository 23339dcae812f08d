import { describe, expect, it } from "vitest";
import { WRITE_RETRY, writeRetryDelay } from "./postgres-locking.js";

describe("writeRetryDelay", () => {
  const rounds = Array.from({ length: WRITE_RETRY.attempts }, (_, i) => i);

  it("never retries immediately: even the lowest draw waits half the round's ceiling", () => {
    for (const round of rounds)
      expect(writeRetryDelay(round, 0)).toBeGreaterThanOrEqual(
        WRITE_RETRY.baseDelayMs / 2,
      );
  });

  it("grows exponentially up to the cap, and the jitter stays inside [ceiling/2, ceiling)", () => {
    const lows = rounds.map((round) => writeRetryDelay(round, 0));
    const highs = rounds.map((round) => writeRetryDelay(round, 0.999999));
    for (let round = 1; round < rounds.length; round++)
      expect(lows[round]!).toBeGreaterThanOrEqual(lows[round - 1]!);
    expect(lows[1]! / lows[0]!).toBe(2);
    expect(Math.max(...highs)).toBeLessThanOrEqual(WRITE_RETRY.maxDelayMs);
    expect(lows.at(-1)).toBe(WRITE_RETRY.maxDelayMs / 2);
    rounds.forEach((round) =>
      expect(highs[round]!).toBeGreaterThan(lows[round]!),
    );
  });

  it("bounds the whole wait before WRITE_CONFLICT to seconds, not minutes", () => {
    const worst = rounds
      .slice(0, -1)
      .reduce((sum, round) => sum + writeRetryDelay(round, 1), 0);
    expect(worst).toBeGreaterThan(1_000);
    expect(worst).toBeLessThan(7_000);
  });
});
