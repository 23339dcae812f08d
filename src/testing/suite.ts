import type { SessionProvider } from "../session/contracts/provider.js";
import { Session } from "../session/session.js";
import { oneCaseAtATime } from "./one-case-at-a-time.js";
import { providerSubject, type Subject } from "./subject.js";
import type {
  ConformanceApi,
  ConformanceStore,
  ProviderCapabilities,
  ProviderFactory,
} from "./types.js";

/** Which surface a case runs against: the raw provider or a `Session` over it. */
export type Layer = "provider" | "session";

export const DEFAULT_CAPABILITIES: Readonly<ProviderCapabilities> = {
  search: true,
  stemming: true,
  lightStemming: true,
  relevanceRanking: true,
  stopWords: false,
  diacriticFolding: true,
  recentHistory: true,
  rowStats: true,
  deleteCompaction: true,
  atomicAppends: true,
  contextBlocks: true,
  config: true,
  snapshots: true,
};

/**
 * What a case body receives: a fresh store and ways to address it. The functions are plain
 * properties, not methods, because case bodies destructure them.
 */
export interface CaseContext {
  readonly layer: Layer;
  readonly store: ConformanceStore;
  /** The surface of this case's layer for a session id (default `"a"`). */
  readonly open: (sessionId?: string) => Subject;
  /** The raw provider for a session id (default `"a"`). */
  readonly provider: (sessionId?: string) => SessionProvider;
  /** `new Session(provider)`, over `store.session(sessionId)` unless a provider is given. */
  readonly session: (sessionId?: string, provider?: SessionProvider) => Session;
}

export type CaseBody = (context: CaseContext) => Promise<void>;

export interface CaseOptions {
  /** Capability values the case needs; when one differs, the case is registered as skipped. */
  requires?: Partial<ProviderCapabilities>;
}

/** Registers cases of one layer with the runner; every case gets its own store. */
export interface Suite {
  readonly layer: Layer;
  readonly capabilities: Readonly<ProviderCapabilities>;
  readonly expect: ConformanceApi["expect"];
  describe(name: string, fn: () => void): void;
  it(name: string, body: CaseBody, options?: CaseOptions): void;
  /** The same suite with cases running against another layer. */
  withLayer(layer: Layer): Suite;
}

/** Builds the suite for a factory and registers the factory's lifecycle hooks. */
export function createSuite(
  factory: ProviderFactory,
  api: ConformanceApi,
): Suite {
  const capabilities = { ...DEFAULT_CAPABILITIES, ...factory.capabilities };
  let started: Promise<unknown> | undefined;
  const start = () => (started ??= Promise.resolve(factory.beforeAll?.()));
  if (api.beforeAll) api.beforeAll(start);
  if (api.afterAll && factory.afterAll) {
    const afterAll = factory.afterAll.bind(factory);
    api.afterAll(() => afterAll());
  }

  const serial = oneCaseAtATime();
  const runCase = (layer: Layer, body: CaseBody): Promise<void> =>
    serial(async () => {
      await start();
      const store = await factory.create();
      try {
        await body(caseContext(layer, store));
      } finally {
        await store.destroy?.();
      }
    });

  const make = (layer: Layer): Suite => ({
    layer,
    capabilities,
    expect: api.expect,
    describe: (name, fn) => api.describe(name, fn),
    it(name, body, options) {
      const gap = capabilityGap(capabilities, options?.requires);
      if (gap === null) {
        api.it(name, () => runCase(layer, body));
      } else if (api.it.skip) {
        api.it.skip(`${name} [skipped: ${gap}]`, () => undefined);
      } else {
        api.it(`${name} [skipped: ${gap}]`, () => undefined);
      }
    },
    withLayer: make,
  });
  return make("session");
}

/** Registers `fn` once per layer, inside `describe("provider")` and `describe("session")`. */
export function eachLayer(suite: Suite, fn: (suite: Suite) => void): void {
  for (const layer of ["provider", "session"] as const) {
    suite.describe(layer, () => fn(suite.withLayer(layer)));
  }
}

// --- Internal helpers ---

function caseContext(layer: Layer, store: ConformanceStore): CaseContext {
  const provider = (sessionId = "a") => store.session(sessionId);
  const session = (sessionId = "a", given?: SessionProvider) =>
    new Session(given ?? provider(sessionId));
  return {
    layer,
    store,
    provider,
    session,
    open: (sessionId = "a") =>
      layer === "session"
        ? session(sessionId)
        : providerSubject(provider(sessionId)),
  };
}

function capabilityGap(
  capabilities: Readonly<ProviderCapabilities>,
  requires: Partial<ProviderCapabilities> = {},
): string | null {
  const gaps: string[] = [];
  for (const [flag, wanted] of Object.entries(requires)) {
    const actual = capabilities[flag as keyof ProviderCapabilities];
    if (actual !== wanted) gaps.push(`${flag}=${String(actual)}`);
  }
  return gaps.length > 0 ? gaps.join(", ") : null;
}
