import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InMemorySessionProvider } from "../../src/backends/memory/index.js";
import { runProviderConformance } from "../../src/testing/index.js";

runProviderConformance(
  {
    name: "InMemorySessionProvider",
    // Light suffix stripping only, not Porter (docs/behavior/search.md#differences-between-backends).
    capabilities: { stemming: false },
    create: () => {
      const root = new InMemorySessionProvider();
      return { session: (sessionId) => root.forSession(sessionId) };
    },
  },
  { describe, it, expect, beforeAll, afterAll },
);
