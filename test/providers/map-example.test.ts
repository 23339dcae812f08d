import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MapSessionProvider } from "../../examples/map-session-provider.js";
import { runProviderConformance } from "../../src/testing/index.js";

// Keeps the minimal provider of docs/custom-providers.md honest.
runProviderConformance(
  {
    name: "MapSessionProvider (docs example)",
    // No capability flags: the members it lacks are read from the provider itself.
    create: () => {
      const root = new MapSessionProvider();
      return { session: (sessionId) => root.forSession(sessionId) };
    },
  },
  { describe, it, expect, beforeAll, afterAll },
);
