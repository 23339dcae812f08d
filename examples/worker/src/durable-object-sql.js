/**
 * The `sql` store shape Arbor's SQL backend takes (docs/behavior/runtime.md), over a plain
 * Durable Object's SQLite storage. An Agents SDK `Agent` already has a `sql` tagged template and
 * can be passed to `Session.create(this)` as it is; a `DurableObject` has `ctx.storage.sql.exec`
 * instead, which takes the statement text with `?` placeholders and the values after it.
 *
 * @param {DurableObjectStorageLike} storage `ctx.storage` of a SQLite-backed Durable Object
 */
export function durableObjectSql(storage) {
  return {
    /**
     * Runs a tagged template as one statement: the template parts joined with `?`, the
     * interpolated values bound as parameters (never spliced into the text).
     * @param {TemplateStringsArray} strings
     * @param {...unknown} values
     */
    sql(strings, ...values) {
      return [...storage.sql.exec(strings.join("?"), ...values)];
    },
    /**
     * Lets Arbor make its multi-statement writes atomic: if `work` throws, they roll back.
     * @template T
     * @param {() => T} work
     * @returns {T}
     */
    transaction(work) {
      return storage.transactionSync(work);
    },
  };
}

/**
 * The part of `DurableObjectStorage` (from `@cloudflare/workers-types`) used here.
 * @typedef {{
 *   sql: { exec(query: string, ...bindings: unknown[]): Iterable<Record<string, unknown>> },
 *   transactionSync<T>(work: () => T): T,
 * }} DurableObjectStorageLike
 */
