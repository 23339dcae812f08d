// The HTTP API suite on the in-memory manager, with the in-memory key store.
import { InMemoryApiKeyStore } from "../../src/server/index.js";
import { SessionManager } from "../../src/session/index.js";
import { runApiSuite } from "./support/api-suite.js";

runApiSuite({
  name: "in memory",
  create: () => {
    const manager = SessionManager.inMemory();
    const keys = new InMemoryApiKeyStore();
    return { manager: () => manager, keys: () => keys };
  },
});
