/**
 * A value as an error message or imported text shows it: a string as it is, a number, boolean,
 * bigint or symbol as `String()` writes it, an object or array as JSON (its fields, not
 * `[object Object]`), and `fallback` for `null`, `undefined` and what JSON cannot write (an
 * object JSON fails on, with a cycle, shows as `[object Object]`).
 */
export function textOf(value: unknown, fallback = ""): string {
  switch (typeof value) {
    case "string":
      return value;
    case "number":
    case "boolean":
    case "bigint":
      return String(value);
    case "symbol":
      return value.toString();
    default:
      if (value === null || value === undefined) return fallback;
      try {
        // `undefined` for a function, although its declared result is `string`.
        return JSON.stringify(value) ?? fallback;
      } catch {
        // A cycle or a bigint inside: an error message must not fail on the value it shows.
        return Object.prototype.toString.call(value);
      }
  }
}
