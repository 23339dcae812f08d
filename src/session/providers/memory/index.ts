export {
  InMemorySessionProvider,
  type InMemorySessionProviderOptions,
} from "./in-memory-session-provider.js";
export { InMemoryContextProvider } from "./in-memory-context-provider.js";
