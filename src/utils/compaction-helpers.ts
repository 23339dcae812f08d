/**
 * @module `arbor/utils/compaction-helpers`: the compaction helpers under the seed's path.
 * The same objects as `arbor/utils`, not copies.
 */
export {
  applyCompactions,
  COMPACTION_PREFIX,
  isCompactionMessage,
} from "./index.js";
