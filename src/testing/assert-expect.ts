import type { ExpectLike } from "./types.js";

/** The part of `node:assert` that `assertExpect` uses. */
export interface AssertLike {
  strictEqual(actual: unknown, expected: unknown, message?: string): void;
  deepStrictEqual(actual: unknown, expected: unknown, message?: string): void;
  ok(value: unknown, message?: string): void;
}

/**
 * An `expect` for runners that have none (node:test), built on `node:assert`. Pass the module in;
 * `arbor-memory/testing` imports nothing runner- or Node-specific itself.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { describe, it, before, after } from "node:test";
 * import { assertExpect, runProviderConformance } from "arbor-memory/testing";
 *
 * runProviderConformance(factory, {
 *   describe, it, beforeAll: before, afterAll: after, expect: assertExpect(assert),
 * });
 * ```
 */
export function assertExpect(
  assert: AssertLike,
): (actual: unknown) => ExpectLike {
  return (actual) => ({
    toBe: (expected) =>
      assert.ok(
        Object.is(actual, expected),
        `expected ${show(actual)} to be ${show(expected)}`,
      ),
    toEqual: (expected) => assert.deepStrictEqual(actual, expected),
    toBeNull: () => assert.strictEqual(actual, null),
    toHaveLength: (length) =>
      assert.strictEqual((actual as { length?: unknown })?.length, length),
    toBeGreaterThan: (expected) =>
      assert.ok(
        (actual as number) > expected,
        `expected ${show(actual)} > ${expected}`,
      ),
    toBeGreaterThanOrEqual: (expected) =>
      assert.ok(
        (actual as number) >= expected,
        `expected ${show(actual)} >= ${expected}`,
      ),
    toContain: (item) =>
      assert.ok(
        typeof actual === "string"
          ? actual.includes(String(item))
          : Array.isArray(actual) && actual.includes(item),
        `expected ${show(actual)} to contain ${show(item)}`,
      ),
    toBeTruthy: () =>
      assert.ok(actual, `expected ${show(actual)} to be truthy`),
    toBeFalsy: () => assert.ok(!actual, `expected ${show(actual)} to be falsy`),
  });
}

// --- Internal helpers ---

function show(value: unknown): string {
  try {
    return typeof value === "string" ? JSON.stringify(value) : String(value);
  } catch {
    return typeof value;
  }
}
