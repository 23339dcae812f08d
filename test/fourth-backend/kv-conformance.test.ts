// The fourth backend through every conformance suite of arbor-memory/testing, as a third-party
// store runs them: the provider suite, the SessionManager suite and the erase suite, each case on
// a new, empty store. Imports the public entries only.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InMemoryAuditSink, SessionManager } from "arbor-memory/session";
import {
  deepText,
  runEraseConformance,
  runManagerConformance,
  runProviderConformance,
} from "arbor-memory/testing";
import { kvBackend } from "./kv-backend.js";
import { KvStore } from "./kv-store.js";

/** Every document of the store, and the engine beside it, index internals included. */
function dumpAll(store: KvStore): string {
  return `${store.dump()}\n${deepText(store.engine.identity)}`;
}

runProviderConformance(
  {
    name: "kv (the fourth backend)",
    create: () => {
      const backend = kvBackend();
      return { session: (sessionId) => backend.session(sessionId) };
    },
  },
  { describe, it, expect, beforeAll, afterAll },
);

runManagerConformance(
  {
    name: "kv (the fourth backend)",
    create: () => {
      const store = new KvStore();
      const backend = kvBackend(store);
      return {
        manager: (options) => SessionManager.create(backend, options),
        dump: () => [dumpAll(store)],
      };
    },
  },
  { describe, it, expect, beforeAll, afterAll },
);

runEraseConformance(
  {
    name: "kv (the fourth backend)",
    create: () => {
      const store = new KvStore();
      const sink = new InMemoryAuditSink();
      const backend = kvBackend(store);
      return {
        manager: () =>
          SessionManager.create(backend).withContext("memory").withAudit(sink),
        auditCount: (id) => sink.forSession(id).length,
        dump: () => `${dumpAll(store)}\n${deepText(sink.events)}`,
        dumpWithoutAudit: () => dumpAll(store),
        // Messages are kept as given: a file's data goes with its message, never counted apart.
        expects: { separateIndex: false, changeLog: false, attachments: false },
      };
    },
  },
  { describe, it, expect },
);
