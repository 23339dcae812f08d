import type { SqliteHandle } from "../../../src/sqlite/index.js";

/** Every row of every table, FTS5 shadow tables included, BLOBs as Latin-1 text. */
export function dumpSqlite(db: SqliteHandle): string {
  const tables = db.sql<{
    name: string;
  }>`SELECT name FROM sqlite_master WHERE type = 'table'`;
  return tables
    .flatMap(({ name }) =>
      db.database
        .prepare(`SELECT * FROM "${name.replaceAll('"', '""')}"`)
        .all()
        .map(
          (row) =>
            `${name}: ${Object.values(row as Record<string, unknown>)
              .map((value) =>
                value instanceof Uint8Array
                  ? Buffer.from(value).toString("latin1")
                  : String(value),
              )
              .join(" | ")}`,
        ),
    )
    .join("\n");
}
