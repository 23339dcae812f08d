import { utf8Length } from "../encoding/utf8.js";

/**
 * JSON text of a value for measuring and display: `JSON.stringify`, or `String(value)` when JSON
 * cannot represent it (BigInt, cycles, functions, `undefined`).
 */
export function jsonText(value: unknown): string {
  try {
    const text = JSON.stringify(value);
    if (typeof text === "string") return text;
  } catch {
    // Falls through to String(): estimates and previews must never throw.
  }
  return String(value);
}

/** UTF-8 bytes of a value's JSON text (`jsonText`), as a row or a reply carries it. */
export function jsonBytes(value: unknown): number {
  const text = jsonText(value);
  return utf8Length(text);
}
