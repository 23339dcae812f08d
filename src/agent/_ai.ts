import { ArborError } from "../session/errors/index.js";

/**
 * The AI SDK (`ai`), loaded when `arbor-memory/agent` is imported. It is an optional peer, so a
 * missing one throws the documented `MISSING_DEPENDENCY` error with the install command instead
 * of a bare ERR_MODULE_NOT_FOUND. Every runtime use of `ai` in this entry goes through here.
 *
 * @internal Stripped from the published declarations, which never reference `ai`'s types.
 */
export const ai: typeof import("ai") = await loadAi();

// --- Internal helpers ---

async function loadAi(): Promise<typeof import("ai")> {
  try {
    return await import("ai");
  } catch (error) {
    throw new ArborError(
      "MISSING_DEPENDENCY",
      "[arbor] [agent] arbor-memory/agent needs the optional peer dependency ai (the AI SDK): npm install ai",
      { cause: error },
    );
  }
}
