import type {
  ChangeEvent,
  ChangePosition,
} from "../../session/contracts/changes.js";
import { ArborTypeError, invalidArgument } from "../../session/errors/index.js";

/**
 * Positions in PostgreSQL's change feed (docs/behavior/events-and-audit.md, "Resuming").
 *
 * `seq` is drawn from a sequence when a write records its change, not when it commits, and
 * writes of different sessions share no lock, so a lower `seq` can commit after a higher one: a
 * store-wide "everything after seq N" would skip it. One session's writes do serialize on its
 * lock, which they take before drawing, so within a session `seq` order is commit order and a
 * `seq` is a complete position for a watch of one session.
 *
 * Store-wide, the position is what a snapshot saw. Every change-log row carries the id of the
 * transaction that wrote it (`xid`, `txid_current()`), and a snapshot (`txid_current_snapshot()`,
 * text `xmin:xmax:xip,…`) decides for every transaction whether it had committed when the
 * snapshot was taken. The reader takes the snapshot in the same statement that reads the rows,
 * so "the rows visible in snapshot S" is exactly what it has delivered; the next read returns
 * the rows whose transaction S did not see. Commit order no longer matters, and neither do
 * rollbacks (their rows never appear). Within one read the rows go out in `seq` order, so the
 * position after one of them is "all of S, plus the rows of S' up to this seq" (`A/B/seq`); the
 * last row of a read is simply at `B`.
 */
export interface PostgresPosition {
  /** A watch of one session: the rows of that session with a higher `seq`. */
  seq?: bigint;
  /** Everything this snapshot saw has been delivered… */
  base?: Snapshot;
  /** …and, when given, the rows this later snapshot saw with `seq <= upTo`. */
  partial?: { snapshot: Snapshot; upTo: bigint };
}

/** A parsed `txid_snapshot`. */
export interface Snapshot {
  text: string;
  xmin: bigint;
  xmax: bigint;
  running: ReadonlySet<bigint>;
}

/** Parses a position a watch was given; `INVALID_ARGUMENT` when it is none of ours. */
export function parsePostgresPosition(
  after: ChangePosition,
  sessionScoped: boolean,
): PostgresPosition {
  if (typeof after === "number" || /^\d{1,19}$/.test(after)) {
    const seq = typeof after === "number" ? after : Number(after);
    if (!Number.isSafeInteger(seq) || seq < 0) throw badPosition(after);
    if (!sessionScoped) {
      throw invalidArgument(
        "A store-wide watch on PostgreSQL resumes from an event's cursor, not its seq: seqs of different sessions can commit out of order",
      );
    }
    return { seq: BigInt(seq) };
  }
  const parts = after.split("/");
  if (parts.length === 1) return { base: parseSnapshot(parts[0]!, after) };
  if (parts.length === 3 && /^\d{1,19}$/.test(parts[2]!)) {
    return {
      base: parseSnapshot(parts[0]!, after),
      partial: {
        snapshot: parseSnapshot(parts[1]!, after),
        upTo: BigInt(parts[2]!),
      },
    };
  }
  throw badPosition(after);
}

/** The cursor after a row of a read that went from `base` to `next`, `last` for its final row. */
export function cursorAfter(
  base: string,
  next: string,
  seq: string,
  last: boolean,
): string {
  return last ? next : `${base}/${next}/${seq}`;
}

/**
 * How a watch resumed with a catch-up read in snapshot `caughtUp` takes a live event (published
 * with its transaction id): `null` when the catch-up delivered it, else the event with a cursor
 * that covers the catch-up too.
 *
 * A live event inside a read `A → B` carries `A/B/seq`: "all of A, and B's rows up to seq". The
 * catch-up may have delivered rows of that same read with a higher seq (those `caughtUp` saw);
 * resuming from `A/B/seq` would deliver them again. When `caughtUp` is later than `A`, everything
 * it saw has been delivered, so the cursor becomes `caughtUp/B/seq`.
 */
export function followCatchUp(
  caughtUp: Snapshot,
  event: ChangeEvent,
  xid: bigint,
): ChangeEvent | null {
  if (visibleIn(caughtUp, xid)) return null;
  const parts = event.cursor.split("/");
  if (parts.length !== 3) return event;
  const base = parseSnapshot(parts[0]!);
  if (later(base, caughtUp) !== caughtUp || base.text === caughtUp.text)
    return event;
  return {
    ...event,
    cursor: cursorAfter(caughtUp.text, parts[1]!, parts[2]!, false),
  };
}

/**
 * The later of two snapshots of one cluster: transaction ids are assigned in order, so a later
 * snapshot's `xmax` is not lower, and with the same `xmax` its running set only shrank.
 */
function later(a: Snapshot, b: Snapshot): Snapshot {
  if (a.xmax !== b.xmax) return a.xmax > b.xmax ? a : b;
  return a.running.size <= b.running.size ? a : b;
}

/** Whether the transaction `xid` had ended (committed, for a row that exists) in `snapshot`. */
export function visibleIn(snapshot: Snapshot, xid: bigint): boolean {
  if (xid < snapshot.xmin) return true;
  return xid < snapshot.xmax && !snapshot.running.has(xid);
}

/** Parses `txid_current_snapshot()::text`. */
export function parseSnapshot(text: string, whole = text): Snapshot {
  const match = /^(\d{1,20}):(\d{1,20}):((?:\d{1,20})(?:,\d{1,20})*)?$/.exec(
    text,
  );
  if (!match) throw badPosition(whole);
  const xmin = BigInt(match[1]!);
  const xmax = BigInt(match[2]!);
  if (xmax < xmin) throw badPosition(whole);
  const running = new Set(
    match[3] ? match[3].split(",").map((xid) => BigInt(xid)) : [],
  );
  return { text, xmin, xmax, running };
}

// --- Internal helpers ---

function badPosition(after: unknown): ArborTypeError {
  return invalidArgument(
    `watch({ after }) needs a position from an earlier event of this store (its cursor, or its seq for a watch of one session), not ${JSON.stringify(after)}`,
  );
}
