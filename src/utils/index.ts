/**
 * @module `arbor/utils`: framework-neutral helpers around sessions: overlay application and the
 * compaction helpers (the compaction algorithm itself arrives with the compaction work).
 *
 * @example
 * ```ts
 * import { applyCompactions } from "arbor/utils";
 * const view = applyCompactions(path, overlays);
 * ```
 */
export {
  applyCompactions,
  COMPACTION_PREFIX,
  isCompactionMessage,
} from "../session/core/apply-compactions.js";
