import { invalidArgument } from "../errors/index.js";

/**
 * Checks a row-size limit (`withRowSizeLimit()` on Session and SessionManager): a positive whole
 * number of bytes, or `false` for no limit. Checked when recorded, so a bad value never reaches a
 * write.
 */
export function assertRowSizeLimit(limit: unknown): number | false {
  if (limit === false) return false;
  if (typeof limit === "number" && Number.isSafeInteger(limit) && limit > 0)
    return limit;
  throw invalidArgument(
    `withRowSizeLimit() takes a positive whole number of bytes or false, got ${describe(limit)}`,
  );
}

// --- Internal helpers ---

function describe(value: unknown): string {
  if (typeof value === "number" || typeof value === "boolean")
    return String(value);
  if (value === null) return "null";
  return typeof value;
}
