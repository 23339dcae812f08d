/**
 * @module `arbor/agent`: running agent turns on top of a Session with the AI SDK (`ai`), and an
 * LLM summarizer for compaction. Needs the `ai` package (a peer dependency).
 *
 * @example
 * ```ts
 * import { summarizeWith } from "arbor/agent";
 * import { createCompactFunction } from "arbor/utils";
 *
 * session.onCompaction(createCompactFunction({ summarize: summarizeWith(model) })).compactAfter(100_000);
 * ```
 */
export { summarizeWith, type SummarizeWithOptions } from "./summarize-with.js";
