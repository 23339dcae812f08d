export {
  InMemorySessionProvider,
  type InMemorySessionProviderOptions,
} from "./in-memory-session-provider.js";
export { InMemoryContextProvider } from "./in-memory-context-provider.js";
export type {
  InMemoryMessageSnapshot,
  InMemorySessionProviderSnapshot,
  InMemorySessionSnapshot,
  StoredMessageJson,
} from "./memory-snapshot.js";
