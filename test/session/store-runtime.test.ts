// The in-process state two objects over one store share, on the in-memory and SQLite stores
// (store-runtime-spec.ts; PostgreSQL in store-runtime-postgres.int.test.ts).
import { describe } from "vitest";
import { memoryBackend } from "../../src/backends/memory/memory-backend.js";
import { MemoryStore } from "../../src/backends/memory/memory-store.js";
import { sqlBackend } from "../../src/backends/sql/sql-backend.js";
import { openSqlite } from "../../src/sqlite/index.js";
import { storeRuntimeSpec } from "./store-runtime-spec.js";

describe("one store, two objects: memory", () => {
  storeRuntimeSpec(async () => {
    const store = new MemoryStore();
    return { backend: () => memoryBackend(store) };
  });
});

describe("one store, two objects: sqlite", () => {
  storeRuntimeSpec(async () => {
    const db = openSqlite(":memory:");
    return { backend: () => sqlBackend(db) };
  });
});
