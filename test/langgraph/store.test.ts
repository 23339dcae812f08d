// ArborStore on the in-memory backend and SQLite (support/store-cases.ts); PostgreSQL in
// store-postgres.int.test.ts.
import { memoryBackend } from "../../src/session/index.js";
import { sqliteBackend } from "../../src/sqlite/index.js";
import { runStoreCases } from "./support/store-cases.js";

runStoreCases("memoryBackend()", () => memoryBackend());
runStoreCases("sqliteBackend(':memory:')", () => sqliteBackend(":memory:"));
