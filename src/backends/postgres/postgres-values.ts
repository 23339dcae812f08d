// How Arbor's values cross the driver boundary, the same for every connection kind: drivers
// differ in how they serialise parameters (pg by the JavaScript value, postgres.js by the type
// the server describes) and in how they parse columns (dates, int8, json).

/**
 * The parameters as every driver binds them alike: `undefined` as `null` (postgres.js rejects
 * it), arrays and objects as JSON text (pg would send an array as a PostgreSQL array literal,
 * postgres.js by the type the server describes). Arbor's SQL casts JSON text where it needs JSON
 * (`JSON_PARAM`, `TEXT_ARRAY_SQL`), never declaring a parameter `json` a driver would encode again.
 */
export function bindable(params: readonly unknown[]): unknown[] {
  return params.map((value) => {
    if (value === undefined) return null;
    if (value instanceof Date) return value.toISOString();
    if (typeof value === "bigint") return value.toString();
    if (isJsonObject(value)) return JSON.stringify(value);
    return value;
  });
}

/**
 * Rows as Arbor reads them whatever the driver parsed: a `Date` (a timestamp column) as ISO-8601
 * text, a `bigint` as decimal text (what `pg` gives for `int8`), a parsed JSON object (`json`,
 * `jsonb`) as JSON text. Arbor's queries select these as text already (`isoSql`, `meta::text`);
 * this keeps a driver's type parsing from ever reaching the row readers.
 */
export function readable(
  rows: ArrayLike<Record<string, unknown>> | null | undefined,
): Record<string, unknown>[] {
  if (!rows) return [];
  return Array.from(rows, (row) => {
    let copy: Record<string, unknown> | undefined;
    for (const key of Object.keys(row)) {
      const value = row[key];
      const text = readableValue(value);
      if (text === value) continue;
      copy ??= { ...row };
      copy[key] = text;
    }
    return copy ?? row;
  });
}

// --- Internal helpers ---

function readableValue(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "bigint") return value.toString();
  // Only a parsed JSON object: an array may be a PostgreSQL array column, which pg parses too.
  if (isJsonObject(value) && !Array.isArray(value))
    return JSON.stringify(value);
  return value;
}

/** An array or object other than bytes (`Buffer`, `Uint8Array`, which drivers bind as `bytea`). */
function isJsonObject(value: unknown): value is object {
  return (
    typeof value === "object" && value !== null && !ArrayBuffer.isView(value)
  );
}
