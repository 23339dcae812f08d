/**
 * LangGraph.js on Arbor (docs/langgraph.md): `ArborCheckpointSaver`, a checkpointer over any
 * Arbor backend whose threads are Arbor sessions. Needs the optional peers
 * `@langchain/langgraph-checkpoint` and `@langchain/core`.
 *
 * @module arbor-memory/langgraph
 */
export {
  ArborCheckpointSaver,
  type ArborCheckpointSaverOptions,
} from "./checkpoint-saver.js";
export { ArborStore, type ArborStoreOptions } from "./store.js";
