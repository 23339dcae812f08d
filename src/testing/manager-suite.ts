import type {
  SessionManager,
  SessionManagerOptions,
} from "../session/manager/session-manager.js";
import type { Session } from "../session/facade/session.js";
import type { ConformanceApi } from "./types.js";
import { oneCaseAtATime } from "./one-case-at-a-time.js";

/**
 * One store under test for the SessionManager suite. `manager()` may be called several times per
 * case: every manager it returns works on the same storage (a restart, or a second app instance).
 */
export interface ManagerStore {
  manager(options?: SessionManagerOptions): SessionManager;
  /**
   * Every stored row, as JSON text, in every table of the store (messages, overlays, index rows,
   * blocks, prompts, config, history, registry). The suite checks that nothing mentions a deleted
   * session's id.
   */
  dump(): unknown[] | Promise<unknown[]>;
  /**
   * Optional: a Session over the same storage opened the way an app does without a manager
   * (`Session.create(store).forSession(sessionId)`). With it the suite checks that such sessions
   * are listed (docs/behavior/manager.md#sessions-written-without-the-manager); without it that
   * case checks nothing.
   */
  sessionWithoutManager?(sessionId: string): Session;
  destroy?(): unknown;
}

/** How the manager suite gets stores of one backend; each `create()` is fresh or cleared storage. */
export interface ManagerFactory {
  name: string;
  beforeAll?(): unknown;
  afterAll?(): unknown;
  create(): ManagerStore | Promise<ManagerStore>;
}

export type ManagerCase = (store: ManagerStore) => Promise<void>;

/** Registers cases, each with its own store. */
export interface ManagerSuite {
  readonly expect: ConformanceApi["expect"];
  describe(name: string, fn: () => void): void;
  it(name: string, body: ManagerCase): void;
}

export function createManagerSuite(
  factory: ManagerFactory,
  api: ConformanceApi,
): ManagerSuite {
  let started: Promise<unknown> | undefined;
  const start = () => (started ??= Promise.resolve(factory.beforeAll?.()));
  if (api.beforeAll) api.beforeAll(start);
  if (api.afterAll && factory.afterAll) {
    const afterAll = factory.afterAll.bind(factory);
    api.afterAll(() => afterAll());
  }
  const serial = oneCaseAtATime();
  return {
    expect: api.expect,
    describe: (name, fn) => api.describe(name, fn),
    it(name, body) {
      api.it(name, () =>
        serial(async () => {
          await start();
          const store = await factory.create();
          try {
            await body(store);
          } finally {
            await store.destroy?.();
          }
        }),
      );
    },
  };
}
