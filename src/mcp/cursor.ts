import { ArborError } from "../session/index.js";

/**
 * Opaque page cursors: base64url JSON tagged with the tool that made them, so a cursor from one
 * tool (or a made-up one) is refused with a clear message instead of paging something else.
 */
export function encodeCursor(
  kind: string,
  state: Record<string, unknown>,
): string {
  const bytes = new TextEncoder().encode(JSON.stringify({ k: kind, ...state }));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary)
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");
}

/** The state of a cursor made by `encodeCursor(kind, …)`; `INVALID_ARGUMENT` for any other. */
export function decodeCursor(
  kind: string,
  cursor: string,
): Record<string, unknown> {
  try {
    const binary = atob(cursor.replaceAll("-", "+").replaceAll("_", "/"));
    const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
    const state: unknown = JSON.parse(new TextDecoder().decode(bytes));
    if (
      typeof state === "object" &&
      state !== null &&
      (state as { k?: unknown }).k === kind
    )
      return state as Record<string, unknown>;
  } catch {
    // Falls through to the error below.
  }
  throw new ArborError(
    "INVALID_ARGUMENT",
    `${kind}: "cursor" is not a cursor this tool returned (pass nextCursor from its last answer, or omit it)`,
  );
}

/** A non-negative integer field of a decoded cursor, or `INVALID_ARGUMENT`. */
export function cursorNumber(
  kind: string,
  state: Record<string, unknown>,
  field: string,
): number {
  const value = state[field];
  if (typeof value === "number" && Number.isInteger(value) && value >= 0)
    return value;
  throw new ArborError("INVALID_ARGUMENT", `${kind}: "cursor" is damaged`);
}
