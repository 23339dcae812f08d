import type {
  EraseReceipt,
  EraseTarget,
  PruneOptions,
  PruneReceipt,
} from "../contracts/erase.js";
import type { ManagerHost } from "./manager-backend.js";
import { ManagerMessages } from "./manager-messages.js";

/**
 * The SessionManager's erase and prune (docs/behavior/erase-and-retention.md). Their code loads
 * on first use (`manager-occasional.ts`), so a Worker bundle keeps it in a separate chunk.
 */
export abstract class ManagerRetention extends ManagerMessages {
  /** What erase and prune use of the manager (set by SessionManager). */
  protected abstract readonly host: ManagerHost;

  /**
   * Removes one session (`{ sessionId }`), every session of a tenant (`{ ownerId }`) or some
   * messages (`{ sessionId, messageIds }`) with everything derived from them on this backend:
   * search index rows, overlays whose range is gone or that summarized an erased message, block
   * history written from the session (for messages: by their tool calls), attachments left
   * without a reference, audit events (when the sink has `erase`), config and context rows, the
   * registry row with its usage. Children of erased messages move up as on delete. Each session
   * is erased atomically, under its append lock, and no compaction of this process that read an
   * erased message stores its summary afterwards. Unknown ids count zero.
   *
   * @returns What was removed, counted per kind, with the time.
   */
  async erase(target: EraseTarget): Promise<EraseReceipt> {
    return (await occasional()).erase(this.host, target);
  }

  /**
   * Deletes whole sessions last updated before `olderThan` and beyond the newest `keepLatest`
   * (either alone suffices), and branches off the active path whose messages are all older than
   * `abandonedBranchesOlderThan`, each as `erase()` removes it; every active path stays whole.
   * `ownerId` limits it to one tenant; `dryRun` only counts and writes nothing.
   *
   * @returns What was removed (or would be), counted per kind, with the sessions and branches.
   */
  async prune(options: PruneOptions = {}): Promise<PruneReceipt> {
    return (await occasional()).prune(this.host, options);
  }
}

function occasional() {
  return import("./manager-occasional.js");
}
