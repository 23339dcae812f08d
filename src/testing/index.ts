/**
 * The provider conformance suite every Arbor backend passes, for your own
 * `SessionProvider` too; it imports no test runner (pass vitest's, jest's or node:test's functions).
 *
 * @module arbor-memory/testing
 */
export type {
  ConformanceApi,
  ConformanceStore,
  ExpectLike,
  ProviderCapabilities,
  ProviderFactory,
} from "./types.js";
export { DEFAULT_CAPABILITIES } from "./suite.js";
export { deepText, type EraseBackend } from "./erase/erase-scenarios.js";
export type { ManagerFactory, ManagerStore } from "./manager-suite.js";
export { assertExpect, type AssertLike } from "./assert-expect.js";
export {
  FAKE_SYNONYMS,
  fakeEmbedder,
  type FakeEmbedderOptions,
} from "./fake-embedder.js";
export {
  build,
  chain,
  conversation,
  ids,
  textMessage,
  tree,
  type Appendable,
  type Fixture,
  type FixtureStep,
  type TreeOptions,
  type TreeShape,
} from "./fixtures.js";
export {
  runProviderConformance,
  runManagerConformance,
  runEraseConformance,
  type EraseConformanceFactory,
} from "./conformance.js";
