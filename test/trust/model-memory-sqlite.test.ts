// The model-based property test (test/trust/model/) on the in-memory store and on SQLite, a
// file reopened by every new manager. ARBOR_MODEL_RUNS raises the number of sequences.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, it } from "vitest";
import {
  InMemorySessionProvider,
  InMemorySessionRegistry,
  Session,
  SessionManager,
} from "../../src/session/index.js";
import { MemoryStore } from "../../src/backends/memory/memory-store.js";
import { memoryBackend } from "../../src/backends/memory/memory-backend.js";
import { openSqlite, type SqliteHandle } from "../../src/sqlite/index.js";
import { checkAgainstModel } from "./model/model-run.js";

const RUNS = Number(process.env.ARBOR_MODEL_RUNS ?? 200);
// About 50 ms a sequence on the slowest backend, with room for a busy machine.
const TIMEOUT = Math.max(600_000, RUNS * 250);

describe("every backend agrees with the plain tree model", () => {
  it(
    `in memory: ${RUNS} random sequences`,
    async () => {
      const store = new MemoryStore();
      const root = new InMemorySessionProvider({}, store);
      const registry = new InMemorySessionRegistry(store);
      await checkAgainstModel(
        {
          manager: () =>
            new SessionManager({
              registry,
              openSession: (id) => Session.create(root).forSession(id),
              backend: memoryBackend(store),
            }),
        },
        { runs: RUNS },
      );
    },
    TIMEOUT,
  );

  const folder = mkdtempSync(join(tmpdir(), "arbor-model-"));
  const handles: SqliteHandle[] = [];
  afterAll(() => {
    for (const handle of handles) handle.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it(
    `SQLite file, reopened on restart: ${RUNS} random sequences`,
    async () => {
      const file = join(folder, "model.db");
      await checkAgainstModel(
        {
          manager: () => {
            const handle = openSqlite(file);
            handles.push(handle);
            // A sequence uses only its newest manager: older connections can go (long runs open thousands).
            while (handles.length > 2) handles.shift()!.close();
            return SessionManager.create(handle);
          },
        },
        { runs: RUNS },
      );
    },
    TIMEOUT,
  );
});
