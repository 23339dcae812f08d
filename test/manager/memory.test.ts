import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  InMemorySessionProvider,
  InMemorySessionRegistry,
  Session,
  SessionManager,
} from "../../src/session/index.js";
import { MemoryStore } from "../../src/backends/memory/memory-store.js";
import { runManagerConformance } from "../../src/testing/index.js";

/** Everything the store holds, keyed by what it is. */
function dumpStore(store: MemoryStore): unknown[] {
  return [
    ...[...store.registry].map(([id, row]) => ({ registry: id, row })),
    ...[...store.sessions].map(([id, data]) => ({
      session: id,
      rows: [...data.rows.values()],
      compactions: data.compactions,
      config: [...data.config],
    })),
    ...[...store.contextRows].map(([key, value]) => ({ context: key, value })),
    ...[...store.blockHistories].map(([id, history]) => ({
      history: id,
      versions: history,
    })),
  ];
}

runManagerConformance(
  {
    name: "in-memory",
    create: () => {
      const store = new MemoryStore();
      const root = new InMemorySessionProvider({}, store);
      return {
        manager: (options) =>
          new SessionManager(
            {
              registry: new InMemorySessionRegistry(store),
              openSession: (sessionId) =>
                Session.create(root).forSession(sessionId),
            },
            options,
          ),
        dump: () => dumpStore(store),
        sessionWithoutManager: (sessionId) =>
          Session.create(root).forSession(sessionId),
      };
    },
  },
  { describe, it, expect, beforeAll, afterAll },
);
