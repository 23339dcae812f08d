import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { InMemorySessionProvider } from "../../src/backends/memory/index.js";
import {
  assertExpect,
  runProviderConformance,
} from "../../src/testing/index.js";

// The suite under a runner with no `expect`, `it.skip` or hooks (node:test style): checks that it
// uses only the documented matchers and registers skipped cases as passing ones.
runProviderConformance(
  {
    name: "InMemorySessionProvider via the node:assert adapter",
    capabilities: { stemming: false },
    create: () => {
      const root = new InMemorySessionProvider();
      return { session: (sessionId) => root.forSession(sessionId) };
    },
  },
  {
    describe,
    it: (name: string, fn: () => unknown) => it(name, fn),
    expect: assertExpect(assert),
  },
);
