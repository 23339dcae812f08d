/**
 * `SessionManager.erase()` (docs/behavior/erase-and-retention.md). Loaded on first use with a
 * dynamic `import()` (manager-occasional.ts), so a Worker bundle keeps it in a
 * separate chunk.
 */
import {
  addCounts,
  zeroCounts,
  type EraseCounts,
  type EraseReceipt,
  type EraseTarget,
  type StoreEraseResult,
  type StoreEraseTarget,
} from "../contracts/erase.js";
import { ArborError, invalidArgument } from "../errors/index.js";
import {
  countEmbeddings,
  eraseEmbeddings,
  hasEmbeddings,
} from "./erase-embeddings.js";
import type { Backend, BackendErase } from "../contracts/backend.js";
import { requireBackend, type ManagerHost } from "./manager-backend.js";
import { importKeyOf, rememberErased } from "./import-index.js";

/** Erases the target and returns the receipt. */
export async function erase(
  host: ManagerHost,
  target: EraseTarget,
): Promise<EraseReceipt> {
  const targets = await resolveTargets(host, target);
  const total = zeroCounts();
  const notCovered = new Set<string>();
  for (const storeTarget of targets) {
    // An imported session leaves a hashed tombstone, so re-importing its source skips it.
    const importKey =
      storeTarget.messageIds === null
        ? await importKeyOf(host.registry, storeTarget.sessionId)
        : null;
    const outcome = await eraseInSession(host, async () => storeTarget, {
      dryRun: false,
    });
    if (importKey !== null && outcome.target !== null)
      await rememberErased(host.registry, importKey, new Date().toISOString());
    addCounts(total, outcome.counts);
    for (const name of outcome.notCovered) notCovered.add(name);
  }
  return {
    ...total,
    erasedAt: new Date().toISOString(),
    notCovered: [...notCovered],
  };
}

/** What one erase step in a session reports. */
export interface SessionEraseOutcome {
  counts: EraseCounts;
  notCovered: string[];
  /** The target that was erased (or counted), or `null` when `plan` found nothing to do. */
  target: StoreEraseTarget | null;
}

/**
 * Erases one target of one session, every store it reaches, as one step. For a real erase,
 * `plan` runs and the step holds the session's in-process append lock and bumps its erase epoch
 * (through the session's seam: state/store-runtime.ts), so no append, delete or compaction of this process interleaves and no
 * compaction that read the erased messages stores its summary afterwards. Queued audit events
 * are flushed first, so none lands after the erase. With `dryRun` nothing is locked or written;
 * `pending` carries the attachment references earlier counted targets would release.
 *
 * The steps are the backend's rows, the vectors and queued embeddings (erase-embeddings.ts),
 * then the audit sink, all under the same lock.
 */
export async function eraseInSession(
  host: ManagerHost,
  plan: () => Promise<StoreEraseTarget | null>,
  options: { dryRun: boolean; pending?: Map<string, number> },
): Promise<SessionEraseOutcome> {
  const { backend, erase: store } = requireErase(host);
  const first = await plan();
  if (first === null)
    return { counts: zeroCounts(), notCovered: [], target: null };
  const { session, seam } = host.managed(first.sessionId);
  const work = async (erasing?: () => void): Promise<SessionEraseOutcome> => {
    const target = options.dryRun ? first : await plan();
    if (target === null)
      return { counts: zeroCounts(), notCovered: [], target: null };
    erasing?.();
    await session.flushAudit();
    // The embedding rows are counted first: on the sql and PostgreSQL stores, triggers drop
    // them in the store's own write. The overlays an erase takes come from its plan (a dry run),
    // needed only when the store has embeddings at all.
    const embedded = await hasEmbeddings(backend);
    const planned =
      options.dryRun || embedded
        ? await store.eraseTarget(target, {
            dryRun: true,
            // A real erase plans on a copy: its own write accounts for the pending references.
            pending: options.dryRun
              ? options.pending
              : new Map(options.pending ?? []),
          })
        : null;
    const embeddings =
      embedded && planned
        ? await countEmbeddings(backend, target, planned.overlayIds)
        : { vectors: 0, queued: 0 };
    const result =
      options.dryRun && planned
        ? planned
        : await store.eraseTarget(target, {
            dryRun: false,
            ...(options.pending ? { pending: options.pending } : {}),
          });
    if (!options.dryRun) await eraseEmbeddings(backend, target, result);
    const notCovered = await eraseAudit(host, target, result, options.dryRun);
    const counts = {
      ...result.counts,
      vectors: embeddings.vectors,
      queuedEmbeddings: embeddings.queued,
    };
    return { counts, notCovered, target };
  };
  if (options.dryRun) return work();
  const outcome = await seam.eraseExclusive(work);
  if (outcome.target?.messageIds === null) host.forget?.(first.sessionId);
  else seam.invalidateEstimate();
  return outcome;
}

/** The manager's store and its erase; `NOT_SUPPORTED` when the store cannot erase. */
export function requireErase(host: ManagerHost): {
  backend: Backend;
  erase: BackendErase;
} {
  const backend = requireBackend(host, "erase() and prune()");
  if (backend.erase) return { backend, erase: backend.erase };
  throw new ArborError(
    "NOT_SUPPORTED",
    `[arbor] erase() and prune() need a backend that implements \`erase\`; the ${backend.name} backend does not`,
  );
}

// --- Internal helpers ---

async function resolveTargets(
  host: ManagerHost,
  target: EraseTarget,
): Promise<StoreEraseTarget[]> {
  checkTarget(target);
  const whole = async (sessionId: string): Promise<StoreEraseTarget> => ({
    sessionId,
    messageIds: null,
    contextKeys: (await host.ownedContextKeys?.(sessionId)) ?? [],
  });
  if (target.ownerId !== undefined) {
    const sessions = await host.registry.list({ ownerId: target.ownerId });
    return Promise.all(sessions.map((info) => whole(info.id)));
  }
  if (target.messageIds === undefined) return [await whole(target.sessionId)];
  return [
    {
      sessionId: target.sessionId,
      messageIds: [...new Set(target.messageIds)],
      contextKeys: [],
    },
  ];
}

function checkTarget(target: EraseTarget): void {
  const value = target as Partial<Record<string, unknown>> | null;
  const text = (v: unknown) => typeof v === "string" && v.length > 0;
  const ok =
    typeof value === "object" &&
    value !== null &&
    (value.ownerId !== undefined
      ? text(value.ownerId) &&
        value.sessionId === undefined &&
        value.messageIds === undefined
      : text(value.sessionId) &&
        (value.messageIds === undefined ||
          (Array.isArray(value.messageIds) &&
            value.messageIds.every((id) => typeof id === "string"))));
  if (!ok) {
    throw invalidArgument(
      "erase() takes { sessionId }, { ownerId } or { sessionId, messageIds: string[] }",
    );
  }
}

/** Forgets the audit events of the target; names the sink when it cannot. */
async function eraseAudit(
  host: ManagerHost,
  target: StoreEraseTarget,
  result: StoreEraseResult,
  dryRun: boolean,
): Promise<string[]> {
  const sink = host.auditSink?.() ?? null;
  if (!sink) return [];
  if (!sink.erase) return ["audit sink without erase()"];
  const ids =
    target.messageIds === null
      ? null
      : [...result.messageIds, ...result.overlayIds];
  if (ids !== null && ids.length === 0) return [];
  result.counts.auditEvents = await sink.erase(
    { sessionId: target.sessionId, ids },
    { dryRun },
  );
  return [];
}
