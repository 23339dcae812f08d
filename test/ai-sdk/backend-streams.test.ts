// Backend streams on the in-memory store and on SQLite (openSqlite).
import { memoryBackend } from "../../src/backends/memory/memory-backend.js";
import { sqlBackend } from "../../src/backends/sql/sql-backend.js";
import { openSqlite } from "../../src/sqlite/index.js";
import { runBackendStreamsCases } from "./backend-streams.cases.js";

runBackendStreamsCases("memory", async () => memoryBackend().streams!);
runBackendStreamsCases(
  "SQLite",
  async () => sqlBackend(openSqlite(":memory:")).streams!,
);
