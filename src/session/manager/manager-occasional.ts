/**
 * The manager's occasional operations: fork, compact-and-split, snapshot export and import, erase
 * and prune.
 * `SessionManager` loads this module with a dynamic `import()` on the first such call, so a
 * bundle keeps their code in a separate chunk (docs/behavior/runtime.md, "Bundle size on
 * Workers").
 */
export { compactAndSplit, forkSession } from "./lineage.js";
export { exportSession, importSession } from "./manager-snapshots.js";
export { erase } from "./erase.js";
export { prune } from "./prune.js";
