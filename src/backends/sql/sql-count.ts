import { ArborError } from "../../session/errors/index.js";

/**
 * The `n` of a `SELECT COUNT(*) AS n` answer. A COUNT always yields one row, so a `sql` tag that
 * answers none (or a row without a number) is not a working SQLite store: that is a typed
 * `STORAGE_UNAVAILABLE` naming the count, never a `TypeError` from reading `n` of nothing, and
 * never a silent 0 that would let a migration decide on a number it did not read.
 */
export function countOf(
  rows: ReadonlyArray<{ n: unknown }>,
  what: string,
): number {
  const value = rows[0]?.n;
  const count = typeof value === "bigint" ? Number(value) : value;
  if (typeof count !== "number" || !Number.isFinite(count)) {
    throw new ArborError(
      "STORAGE_UNAVAILABLE",
      `[arbor] The sql store answered no count for ${what} (${rows.length} rows): a COUNT query must return one row with a number`,
    );
  }
  return count;
}
