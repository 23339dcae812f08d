/**
 * LangGraph's store filter (`search(prefix, { filter })`): each key of the filter names a field
 * of the item's value, matched by equality or by operators (`$eq`, `$ne`, `$gt`, `$gte`, `$lt`,
 * `$lte`, `$in`, `$nin`), as LangGraph's `InMemoryStore` matches them.
 */
export function matchesFilter(
  value: Record<string, unknown>,
  filter: Record<string, unknown>,
): boolean {
  return Object.entries(filter).every(([field, expected]) =>
    matchesValue(value[field], expected),
  );
}

// --- Internal helpers ---

function matchesValue(actual: unknown, expected: unknown): boolean {
  if (!isOperators(expected)) return deepEqual(actual, expected);
  return Object.entries(expected).every(([operator, operand]) => {
    switch (operator) {
      case "$eq":
        return deepEqual(actual, operand);
      case "$ne":
        return !deepEqual(actual, operand);
      case "$gt":
        return Number(actual) > Number(operand);
      case "$gte":
        return Number(actual) >= Number(operand);
      case "$lt":
        return Number(actual) < Number(operand);
      case "$lte":
        return Number(actual) <= Number(operand);
      case "$in":
        return (
          Array.isArray(operand) &&
          operand.some((entry) => deepEqual(actual, entry))
        );
      case "$nin":
        return (
          !Array.isArray(operand) ||
          !operand.some((entry) => deepEqual(actual, entry))
        );
      default:
        return false;
    }
  });
}

function isOperators(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    Object.keys(value).length > 0 &&
    Object.keys(value).every((key) => key.startsWith("$"))
  );
}

/** Equality of JSON values (the stored value went through JSON). */
function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
