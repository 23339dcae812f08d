/**
 * `SessionManager.prune()` (docs/behavior/erase-and-retention.md#prune): whole sessions by age or
 * count, and abandoned branches, each removed as an erase is. Loaded on first use (manager-occasional.ts).
 */
import {
  addCounts,
  zeroCounts,
  type PruneCutoff,
  type PruneOptions,
  type PruneReceipt,
  type PrunedSession,
  type StoreEraseTarget,
} from "../contracts/erase.js";
import type { SessionInfo } from "../contracts/session-info.js";
import {
  ACTIVE_LEAF_KEY,
  parseBranchPointer,
} from "../tree/stored-branch-pointer.js";
import { abandonedBranches } from "../erase/erase-rules.js";
import { invalidArgument } from "../errors/index.js";
import { eraseInSession, requireErase } from "./erase.js";
import { IMPORTED_AT_METADATA } from "./import-index.js";
import type { ManagerHost } from "./manager-backend.js";
import { getMetadata } from "./tenancy.js";

/** Prunes as `options` say and returns the receipt; with `dryRun`, what it would remove. */
export async function prune(
  host: ManagerHost,
  options: PruneOptions = {},
): Promise<PruneReceipt> {
  requireErase(host);
  const now = Date.now();
  const sessionCutoff = cutoff(options.olderThan, now, "olderThan");
  const branchCutoff = cutoff(
    options.abandonedBranchesOlderThan,
    now,
    "abandonedBranchesOlderThan",
  );
  const keepLatest = checkKeepLatest(options.keepLatest);
  const dryRun = options.dryRun === true;
  const sessions = await host.registry.list(
    options.ownerId !== undefined ? { ownerId: options.ownerId } : {},
  );
  const doomed = await sessionsToDelete(
    host,
    sessions,
    sessionCutoff,
    keepLatest,
  );
  const doomedIds = new Set(doomed.map((info) => info.id));
  const total = zeroCounts();
  const notCovered = new Set<string>();
  const pending = new Map<string, number>();
  let branches = 0;
  const run = async (plan: () => Promise<StoreEraseTarget | null>) => {
    // `pending` only for a dry run: a real erase releases the references it counts.
    const outcome = await eraseInSession(host, plan, {
      dryRun,
      ...(dryRun ? { pending } : {}),
    });
    addCounts(total, outcome.counts);
    for (const name of outcome.notCovered) notCovered.add(name);
    return outcome;
  };
  for (const info of doomed) {
    await run(async () => ({
      sessionId: info.id,
      messageIds: null,
      contextKeys: (await host.ownedContextKeys?.(info.id)) ?? [],
    }));
  }
  if (branchCutoff !== undefined) {
    for (const info of sessions) {
      if (doomedIds.has(info.id)) continue;
      let found = 0;
      // Planned again under the session's lock: an append in between may revive a branch.
      await run(async () => {
        const plan = await planBranches(host, info.id, branchCutoff);
        found = plan.branches;
        return plan.ids.length === 0
          ? null
          : { sessionId: info.id, messageIds: plan.ids, contextKeys: [] };
      });
      branches += found;
    }
  }
  return {
    ...total,
    prunedAt: new Date().toISOString(),
    dryRun,
    sessionIds: doomed.map((info) => info.id),
    prunedSessions: doomed,
    branches,
    notCovered: [...notCovered],
  };
}

// --- Internal helpers ---

/**
 * Sessions (in list order, newest first) older than the cutoff and beyond the newest `keepLatest`,
 * each with the date its age counts from. An imported conversation keeps its own (old) dates, so
 * that date is the later of its last update and when it entered this store: a prune right after an
 * import keeps what was just imported. The entry time is read only for sessions whose last update
 * is already past the cutoff, one metadata read each.
 */
async function sessionsToDelete(
  host: ManagerHost,
  sessions: readonly SessionInfo[],
  olderThan: string | undefined,
  keepLatest: number | undefined,
): Promise<PrunedSession[]> {
  if (olderThan === undefined && keepLatest === undefined) return [];
  const doomed: PrunedSession[] = [];
  for (const [index, info] of sessions.entries()) {
    if (keepLatest !== undefined && index < keepLatest) continue;
    if (olderThan !== undefined && !(info.updated_at < olderThan)) continue;
    const importedAt = await getMetadata(
      host.registry,
      info.id,
      IMPORTED_AT_METADATA,
    );
    const activeAt = laterOf(info.updated_at, importedAt);
    if (olderThan !== undefined && !(activeAt < olderThan)) continue;
    doomed.push({ id: info.id, name: info.name, activeAt });
  }
  return doomed;
}

/** The later of two ISO 8601 UTC times; a metadata value that is not one is ignored. */
function laterOf(updatedAt: string, importedAt: string | null): string {
  if (importedAt === null) return updatedAt;
  const time = Date.parse(importedAt);
  if (!Number.isFinite(time)) return updatedAt;
  const iso = new Date(time).toISOString();
  return iso > updatedAt ? iso : updatedAt;
}

/**
 * The abandoned branches of one session, from its stored tree and its active leaf. The active
 * leaf is read from storage as the branch pointer defines it (state/branch-pointer.ts), not from a
 * Session object, whose pointer may be older than another manager's `switchBranch()`.
 */
async function planBranches(
  host: ManagerHost,
  sessionId: string,
  before: string,
): Promise<{ ids: string[]; branches: number }> {
  const { provider } = await host.managed(sessionId).seam.ready();
  const records = ((await provider.exportMessages?.()) ?? []).map((r) => ({
    id: r.message.id,
    parentId: r.parentId,
    createdAt: r.createdAt,
  }));
  const parents = new Map(records.map((r) => [r.id, r.parentId]));
  const withChild = new Set(records.map((r) => r.parentId));
  // The latest leaf: the childless message inserted last (records come in insertion order).
  const latest = records.findLast((r) => !withChild.has(r.id))?.id ?? null;
  const pointer = parseBranchPointer(
    await provider.getConfig?.(ACTIVE_LEAF_KEY),
  );
  const leaf =
    pointer && parents.has(pointer.leafId) && pointer.newestAtSwitch === latest
      ? pointer.leafId
      : latest;
  const activePath = new Set<string>();
  for (
    let at: string | null | undefined = leaf;
    typeof at === "string" && !activePath.has(at);
    at = parents.get(at)
  )
    activePath.add(at);
  return abandonedBranches(records, activePath, before);
}

function cutoff(
  value: PruneCutoff | undefined,
  now: number,
  name: string,
): string | undefined {
  if (value === undefined) return undefined;
  const time =
    value instanceof Date
      ? value.getTime()
      : typeof value === "number" && value >= 0
        ? now - value
        : Number.NaN;
  if (!Number.isFinite(time)) {
    throw invalidArgument(
      `prune() needs \`${name}\` as a Date or an age in milliseconds (>= 0), got ${String(value)}`,
    );
  }
  return new Date(time).toISOString();
}

function checkKeepLatest(value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (Number.isInteger(value) && value >= 0) return value;
  throw invalidArgument(
    `prune() needs \`keepLatest\` as a whole number >= 0, got ${String(value)}`,
  );
}
