import { ArborError } from "../session/errors/index.js";

/** The install command every "LangGraph is missing" message names. */
export const LANGGRAPH_INSTALL =
  "npm install @langchain/langgraph-checkpoint @langchain/core";

/**
 * `@langchain/langgraph-checkpoint`, loaded when `arbor-memory/langgraph` is imported. It is an
 * optional peer (and needs `@langchain/core`), and the saver and the store extend its classes at
 * module load: a static import would fail while ES modules are linked, before any code of ours
 * runs, with a bare ERR_MODULE_NOT_FOUND. Loading it here with a top-level await lets a missing
 * peer throw the documented `MISSING_DEPENDENCY` error with the install command instead. Every
 * runtime use of the package in this entry goes through these bindings; types are imported as
 * types. Kept in the published declarations: the classes there extend through them.
 */
const checkpoint: typeof import("@langchain/langgraph-checkpoint") =
  await loadCheckpoint();

export const {
  BaseCheckpointSaver,
  BaseStore,
  TASKS,
  WRITES_IDX_MAP,
  compareWritesSortKeys,
  getTextAtPath,
  maxChannelVersion,
  validateNamespace,
  writesSortKey,
} = checkpoint;

// --- Internal helpers ---

async function loadCheckpoint(): Promise<
  typeof import("@langchain/langgraph-checkpoint")
> {
  try {
    return await import("@langchain/langgraph-checkpoint");
  } catch (error) {
    throw peerLoadError(error);
  }
}

/** `MISSING_DEPENDENCY` when a LangGraph package is what failed to load; anything else as is. */
function peerLoadError(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : "";
  if (
    (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") &&
    message.includes("@langchain/")
  ) {
    return new ArborError(
      "MISSING_DEPENDENCY",
      `[arbor] [langgraph] arbor-memory/langgraph needs the optional peer dependencies @langchain/langgraph-checkpoint and @langchain/core: ${LANGGRAPH_INSTALL}`,
      { cause: error },
    );
  }
  return error;
}
