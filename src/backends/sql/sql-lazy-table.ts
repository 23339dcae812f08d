import type { SqlProvider } from "../../session/contracts/sql-provider.js";

/**
 * For a read of a table the store creates on its first write (context blocks, block history):
 * whether the table is there, without creating it. A store that never wrote one reads as empty,
 * and a read-only connection (`openSqlite(file, { readonly: true })`) stays read-only. `ready`
 * is the caller's per-store cache, which its `CREATE TABLE` fills as well.
 */
export function lazyTableExists(
  agent: SqlProvider,
  ready: WeakSet<object>,
  table: string,
): boolean {
  if (ready.has(agent)) return true;
  const [row] = agent.sql<{ n: number }>`
    SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = ${table}`;
  if (Number(row?.n ?? 0) === 0) return false;
  ready.add(agent);
  return true;
}
