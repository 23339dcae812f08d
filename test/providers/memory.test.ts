import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InMemorySessionProvider } from "../../src/backends/memory/index.js";
import { runProviderConformance } from "../../src/testing/index.js";

runProviderConformance(
  {
    name: "InMemorySessionProvider",
    create: () => {
      const root = new InMemorySessionProvider();
      return { session: (sessionId) => root.forSession(sessionId) };
    },
  },
  { describe, it, expect, beforeAll, afterAll },
);
