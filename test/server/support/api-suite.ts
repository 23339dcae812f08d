// The HTTP API suite: every backend runs the same cases through `app.request()`. A factory gives
// each case fresh (or emptied) storage; `manager()` may be called several times per case and every
// manager works on the same storage. Cases live in one file per area (cases-*.ts).
import { afterAll, beforeAll, describe } from "vitest";
import type { ApiKeyStore } from "../../../src/server/index.js";
import type { SessionManager } from "../../../src/session/index.js";
import { appendRaceCases } from "./cases-append-races.js";
import { authCases } from "./cases-auth.js";
import { contextCases } from "./cases-context.js";
import { idempotencyCases } from "./cases-idempotency.js";
import { idempotencyRaceCases } from "./cases-idempotency-races.js";
import { isolationCases } from "./cases-isolation.js";
import { malformedCases } from "./cases-malformed.js";
import { sessionCases } from "./cases-sessions.js";
import { transferCases } from "./cases-transfer.js";
import { treeCases } from "./cases-tree.js";

/** One store under test. */
export interface ApiStore {
  /** A new, unconfigured manager over the store. */
  manager(): SessionManager;
  /** The API key store beside the sessions (the same database). */
  keys(): ApiKeyStore;
  destroy?(): unknown;
}

/** How the suite gets stores of one backend. */
export interface ApiFactory {
  name: string;
  beforeAll?(): unknown;
  afterAll?(): unknown;
  create(): ApiStore | Promise<ApiStore>;
}

/** Opens a fresh store for the body and closes it afterwards. */
export type WithStore = <T>(
  body: (store: ApiStore) => Promise<T>,
) => Promise<T>;

/** Registers every case of the API suite for one backend. */
export function runApiSuite(factory: ApiFactory): void {
  describe(`arbor HTTP API: ${factory.name}`, () => {
    if (factory.beforeAll) beforeAll(() => factory.beforeAll!(), 60_000);
    if (factory.afterAll) afterAll(() => factory.afterAll!(), 60_000);
    const withStore: WithStore = async (body) => {
      const store = await factory.create();
      try {
        return await body(store);
      } finally {
        await store.destroy?.();
      }
    };
    sessionCases(withStore);
    appendRaceCases(withStore);
    treeCases(withStore);
    contextCases(withStore);
    transferCases(withStore);
    idempotencyCases(withStore);
    idempotencyRaceCases(withStore);
    authCases(withStore);
    malformedCases(withStore);
    isolationCases(withStore);
  });
}
