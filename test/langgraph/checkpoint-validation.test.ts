// LangGraph's official checkpointer suite, unchanged, on ArborCheckpointSaver over the in-memory
// backend and SQLite (a fresh store for every checkpointer the suite creates, as it requires).
// PostgreSQL: checkpoint-validation-postgres.int.test.ts.
import Database from "better-sqlite3";
import { ArborCheckpointSaver } from "../../src/langgraph/index.js";
import { memoryBackend } from "../../src/session/index.js";
import { sqliteBackend } from "../../src/sqlite/index.js";
import { validateSaver } from "./support/validation-suite.js";

validateSaver({
  checkpointerName: "ArborCheckpointSaver over memoryBackend()",
  createCheckpointer: () => new ArborCheckpointSaver(memoryBackend()),
});

const databases = new Map<ArborCheckpointSaver, Database.Database>();
validateSaver({
  checkpointerName: "ArborCheckpointSaver over sqliteBackend()",
  createCheckpointer: () => {
    const database = new Database(":memory:");
    const saver = new ArborCheckpointSaver(sqliteBackend(database));
    databases.set(saver, database);
    return saver;
  },
  destroyCheckpointer: (saver) => {
    databases.get(saver)?.close();
    databases.delete(saver);
  },
});
