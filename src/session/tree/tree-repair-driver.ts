import type { StoredCompaction } from "../contracts/types.js";
import { planTreeRepair, type TreeRepairPlan } from "./tree-repair.js";

/** A message's id and parent as a store reads them. */
export interface ParentLink {
  id: string;
  parent_id: string | null;
}

/**
 * A value now (`Async` false: a synchronous store such as SQLite) or a promise of it (`true`:
 * PostgreSQL). One driver serves both: a SQLite delete must stay synchronous, because it runs
 * inside the caller's synchronous transaction (a Durable Object's `transactionSync`).
 */
export type RepairStep<T, Async extends boolean> = Async extends true
  ? Promise<T>
  : T;

/**
 * What a backend supplies to `deleteWithTreeRepair`: the SQL of its dialect and nothing else.
 * The reads see one session; `apply` writes the plan and deletes the targets in the caller's
 * transaction (or one statement).
 */
export interface TreeRepairDialect<
  Target extends ParentLink,
  Result,
  Async extends boolean = boolean,
> {
  /** The stored rows among `ids` (those that exist in the session). */
  readTargets(ids: readonly string[]): RepairStep<readonly Target[], Async>;
  /** The children of `parentIds`, in insertion order. */
  readChildren(
    parentIds: readonly string[],
  ): RepairStep<readonly ParentLink[], Async>;
  /** The session's overlays with an endpoint among `ids`. */
  readOverlaysTouching(
    ids: readonly string[],
  ): RepairStep<readonly StoredCompaction[], Async>;
  /** The links from `toId` up to (and including) `fromId`, the range of one overlay. */
  readRange(
    toId: string,
    fromId: string,
  ): RepairStep<readonly ParentLink[], Async>;
  /** Writes the plan and deletes the targets; `deletedIds` are the targets' ids. */
  apply(
    plan: TreeRepairPlan,
    targets: readonly Target[],
    deletedIds: readonly string[],
  ): RepairStep<Result, Async>;
  /** The answer when none of the ids exists (nothing is written). */
  readonly none: Result;
}

/**
 * Deletes messages of one session with the tree and overlay repair of
 * docs/behavior/messages-and-tree.md, reading only the rows being deleted, their children and
 * the ranges of the overlays they touch, then applying `planTreeRepair`'s plan. The order of the
 * reads and what is made of them live here once; each dialect supplies only its SQL. Synchronous
 * over a synchronous dialect, a promise over an asynchronous one.
 */
export function deleteWithTreeRepair<Target extends ParentLink, Result>(
  dialect: TreeRepairDialect<Target, Result, false>,
  ids: readonly string[],
): Result;
export function deleteWithTreeRepair<Target extends ParentLink, Result>(
  dialect: TreeRepairDialect<Target, Result, true>,
  ids: readonly string[],
): Promise<Result>;
export function deleteWithTreeRepair<Target extends ParentLink, Result>(
  dialect: TreeRepairDialect<Target, Result>,
  ids: readonly string[],
): Result | Promise<Result> {
  const wanted = [...new Set(ids)].filter((id) => typeof id === "string");
  return then(dialect.readTargets(wanted), (targets) => {
    if (targets.length === 0) return dialect.none;
    const parents = new Map<string, string | null>();
    for (const row of targets) parents.set(row.id, row.parent_id);
    const deleted = new Set(parents.keys());
    const deletedIds = [...deleted];
    return then(dialect.readChildren(deletedIds), (rows) => {
      const children = new Map<string, string[]>();
      for (const row of rows) {
        if (row.parent_id === null) continue;
        const list = children.get(row.parent_id) ?? [];
        list.push(row.id);
        children.set(row.parent_id, list);
      }
      return then(dialect.readOverlaysTouching(deletedIds), (overlays) =>
        then(readRanges(dialect, overlays, parents), () => {
          const plan = planTreeRepair({
            deleted,
            parentOf: (id) => parents.get(id),
            childrenOf: (id) => children.get(id) ?? [],
            overlays,
          });
          return dialect.apply(plan, targets, deletedIds);
        }),
      );
    });
  });
}

// --- Internal helpers ---

/** Runs `next` on `value` now, or when it resolves: the one place sync and async differ. */
function then<T, U>(
  value: T | Promise<T>,
  next: (value: T) => U | Promise<U>,
): U | Promise<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/** Adds the links of each overlay's range to `parents`, one overlay after the other. */
function readRanges<Target extends ParentLink, Result>(
  dialect: TreeRepairDialect<Target, Result>,
  overlays: readonly StoredCompaction[],
  parents: Map<string, string | null>,
  index = 0,
): void | Promise<void> {
  const overlay = overlays[index];
  if (overlay === undefined) return;
  return then(
    dialect.readRange(overlay.toMessageId, overlay.fromMessageId),
    (links) => {
      for (const link of links) parents.set(link.id, link.parent_id);
      return readRanges(dialect, overlays, parents, index + 1);
    },
  );
}
