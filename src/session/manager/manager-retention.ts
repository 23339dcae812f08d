import type {
  EraseReceipt,
  EraseTarget,
  PruneOptions,
  PruneReceipt,
} from "../contracts/erase.js";
import type { ManagerHost } from "./manager-backend.js";

/**
 * The SessionManager's erase and prune (docs/behavior/erase-and-retention.md), one part of its
 * facade. Their code loads on first use (`manager-occasional.ts`), so a Worker bundle keeps it in
 * a separate chunk.
 */
export class ManagerRetention {
  /** `host`: what erase and prune use of the manager. */
  constructor(private readonly host: ManagerHost) {}

  /** `SessionManager.erase()`: one target, every store it reaches. */
  async erase(target: EraseTarget): Promise<EraseReceipt> {
    return (await occasional()).erase(this.host, target);
  }

  /** `SessionManager.prune()`: old sessions and abandoned branches. */
  async prune(options: PruneOptions = {}): Promise<PruneReceipt> {
    return (await occasional()).prune(this.host, options);
  }
}

function occasional() {
  return import("./manager-occasional.js");
}
