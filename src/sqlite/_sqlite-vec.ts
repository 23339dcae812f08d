import { createRequire } from "node:module";
import type { SqliteDatabase } from "./_better-sqlite3.js";

/**
 * Loads the optional peer `sqlite-vec` into a connection when it is installed; `false` when it
 * is not (or cannot load on this platform). Semantic search then ranks inside SQLite with
 * `vec_distance_cosine`, and scans the vectors in JavaScript otherwise, so a missing extension
 * costs speed, never results.
 */
export function loadSqliteVec(database: SqliteDatabase): boolean {
  const extension = sqliteVec();
  if (!extension) return false;
  try {
    extension.load(database);
    return true;
  } catch {
    return false;
  }
}

// --- Internal helpers ---

interface SqliteVecModule {
  load(database: unknown): void;
}

let module: SqliteVecModule | null | undefined;

function sqliteVec(): SqliteVecModule | null {
  if (module !== undefined) return module;
  try {
    module = createRequire(import.meta.url)("sqlite-vec") as SqliteVecModule;
  } catch {
    module = null;
  }
  return module;
}
