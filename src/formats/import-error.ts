import { ArborError } from "../session/errors/index.js";

/** The `INVALID_IMPORT` error: `where` names the line or node (`line 7`, `conversation "Trip" node "abc"`). */
export function invalidImport(
  where: string | null,
  problem: string,
  cause?: unknown,
): ArborError {
  return new ArborError(
    "INVALID_IMPORT",
    where ? `${where}: ${problem}` : problem,
    cause === undefined ? undefined : { cause },
  );
}

/** A value as a plain JSON object, or `null`. */
export function asRecord(value: unknown): Record<string, unknown> | null {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}
