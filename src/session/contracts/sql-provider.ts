/**
 * The Durable-Object-style store shape (docs/behavior/runtime.md): any object whose `sql` method works as a
 * tagged template. Interpolated values are bound parameters. Calls are synchronous and return
 * row objects (`[]` for statements without rows). A Cloudflare Durable Object `Agent` has it;
 * `openSqlite()` from `arbor-memory/sqlite` makes one for Node.
 */
export interface SqlProvider {
  sql<Row = Record<string, unknown>>(
    strings: TemplateStringsArray,
    ...values: unknown[]
  ): Row[];
  /**
   * Optional: runs `fn` atomically (SQLite `BEGIN IMMEDIATE`). Arbor uses it when present, so
   * read-then-write operations are atomic across processes; Durable Objects rely on their
   * single-threaded host instead.
   */
  transaction?<T>(fn: () => T): T;
  /** Optional: status events (docs/behavior/events-and-audit.md) are sent here as JSON strings. */
  broadcast?(message: string): void;
}

/** True for an object with a callable `sql` property. */
export function isSqlProvider(target: unknown): target is SqlProvider {
  return (
    typeof target === "object" &&
    target !== null &&
    typeof (target as { sql?: unknown }).sql === "function"
  );
}
