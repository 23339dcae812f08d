export {
  InMemorySessionProvider,
  type InMemorySessionProviderOptions,
} from "./memory-session-provider.js";
export { InMemoryContextProvider } from "./memory-context-provider.js";
export type {
  InMemoryMessageSnapshot,
  InMemorySessionProviderSnapshot,
  InMemorySessionSnapshot,
  StoredMessageJson,
} from "./memory-snapshot.js";
