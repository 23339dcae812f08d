// Concurrency across processes and connections, with erase in the race:
// - two processes append to one session of one SQLite file while this process erases some of
//   their messages: no SQLITE_BUSY reaches a caller, nothing acknowledged is lost, one chain;
// - eight PostgreSQL writers, each on its own connection and SessionManager (so they share no
//   in-process lock, as separate processes would), append to one session while a ninth erases.
// Appends alone are covered elsewhere: test/providers/watch-sqlite-cross-process.int.test.ts (two
// processes, change feed) and test/providers/postgres-races.int.test.ts (8 writers × 500 appends
// on every connection kind, and child processes).
import { postgresBackend } from "../../src/postgres/index.js";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  SessionManager,
  type SessionMessage,
} from "../../src/session/index.js";
import { openSqlite } from "../../src/sqlite/index.js";
import { dumpAllTables } from "../manager/support/postgres-manager.js";
import {
  createTestDatabase,
  describePostgres,
  type TestDatabase,
} from "../providers/postgres-database.js";
import { dumpSqlite } from "./support/sqlite-dump.js";
import { transpileForChildren } from "./support/transpiled.js";

const CHILD = fileURLToPath(
  new URL("./concurrency/append-child.mjs", import.meta.url),
);

describe("two processes appending to one SQLite session while it is erased from", () => {
  let modules: { modules: string; remove: () => void };
  let folder = "";
  beforeAll(() => {
    modules = transpileForChildren([
      "sqlite/open-sqlite.ts",
      "session/index.ts",
    ]);
    folder = mkdtempSync(join(tmpdir(), "arbor-concurrency-"));
  }, 60_000);
  afterAll(() => {
    modules?.remove();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it("loses nothing, forks nothing, and brings nothing erased back", async () => {
    const file = join(folder, "shared.db");
    const db = openSqlite(file);
    const manager = SessionManager.create(db);
    // The schema exists before the children open the file.
    await manager.append("shared", text("seed", "seed"));
    const children = ["p1", "p2"].map((writer) =>
      appendInChild(modules.modules, file, writer, 150),
    );
    const erased: string[] = [];
    let done = false;
    const all = Promise.all(children).finally(() => (done = true));
    // Eight erases, 60 ms apart, from the children's first messages on: a slow start on a busy
    // machine delays them instead of leaving rounds without a victim.
    while (erased.length < 8) {
      await new Promise((resolve) => setTimeout(resolve, 60));
      const history = await manager.getHistory("shared");
      const victim = history
        .map((m) => m.id)
        .filter((id) => id !== "seed")
        .at(-3);
      if (!victim) {
        if (done) break;
        continue;
      }
      await manager.erase({ sessionId: "shared", messageIds: [victim] });
      erased.push(victim);
    }
    const acknowledged = (await all).flat();
    expect(acknowledged).toHaveLength(300);
    expect(erased.length).toBeGreaterThan(3);

    const history = (await manager.getHistory("shared")).map((m) => m.id);
    const expected = ["seed", ...acknowledged].filter(
      (id) => !erased.includes(id),
    );
    expect([...history].sort()).toEqual([...expected].sort());
    const links = db.sql<{ id: string; parent_id: string | null }>`
      SELECT id, parent_id FROM assistant_messages WHERE session_id = 'shared'`;
    expect(links).toHaveLength(expected.length);
    expectOneChain(links);
    const dump = dumpSqlite(db).toLowerCase();
    for (const id of erased) {
      const [writer, index] = id.split("-");
      expect(dump.includes(`text${writer}x${index}end`)).toBe(false);
    }
    db.close();
  }, 120_000);
});

describePostgres(
  "eight PostgreSQL writers on one session while a ninth erases",
  () => {
    let database: TestDatabase | undefined;
    const clients: pg.Client[] = [];
    beforeAll(async () => {
      database = await createTestDatabase();
    });
    afterAll(async () => {
      await Promise.all(clients.map((client) => client.end()));
      await database?.drop();
    });

    it("PostgreSQL: loses nothing, forks nothing, and brings nothing erased back", async () => {
      for (let n = 0; n < 9; n++) clients.push(await database!.client());
      const [eraser, ...writers] = clients.map((client) =>
        SessionManager.create(postgresBackend(client)),
      );
      await eraser!.append("race", text("seed", "seed"));
      const acknowledged: string[] = [];
      const erased: string[] = [];
      let writing = true;
      const appends = writers.map(async (manager, writer) => {
        for (let index = 0; index < 60; index++) {
          const id = `w${writer}-${index}`;
          await manager.append("race", text(id, `textw${writer}x${index}end`));
          acknowledged.push(id);
        }
      });
      const erases = (async () => {
        while (writing) {
          const victim = acknowledged.at(-5);
          if (victim && !erased.includes(victim)) {
            await eraser!.erase({ sessionId: "race", messageIds: [victim] });
            erased.push(victim);
          }
          await new Promise((resolve) => setTimeout(resolve, 40));
        }
      })();
      await Promise.all(appends);
      writing = false;
      await erases;
      expect(acknowledged).toHaveLength(480);
      expect(erased.length).toBeGreaterThan(3);

      const history = (await eraser!.getHistory("race")).map((m) => m.id);
      const expected = ["seed", ...acknowledged].filter(
        (id) => !erased.includes(id),
      );
      expect([...history].sort()).toEqual([...expected].sort());
      const { rows } = await database!.pool.query<{
        id: string;
        parent_id: string | null;
      }>(
        "SELECT id, parent_id FROM assistant_messages WHERE session_id = 'race'",
      );
      expect(rows).toHaveLength(expected.length);
      expectOneChain(rows);
      const dump = JSON.stringify(await dumpAllTables(database!)).toLowerCase();
      for (const id of erased) {
        const [writer, index] = id.slice(1).split("-");
        expect(dump.includes(`textw${writer}x${index}end`)).toBe(false);
      }
    }, 180_000);
  },
);

// --- Internal helpers ---

function text(id: string, body: string): SessionMessage {
  return { id, role: "user", parts: [{ type: "text", text: body }] };
}

/** One root, and no message with two children: the rows form a single chain. */
function expectOneChain(
  links: ReadonlyArray<{ id: string; parent_id: string | null }>,
): void {
  const ids = new Set(links.map((link) => link.id));
  const children = new Map<string, number>();
  for (const link of links) {
    if (link.parent_id === null) continue;
    expect(ids.has(link.parent_id), `parent of ${link.id}`).toBe(true);
    children.set(link.parent_id, (children.get(link.parent_id) ?? 0) + 1);
  }
  expect(links.filter((link) => link.parent_id === null)).toHaveLength(1);
  expect([...children].filter(([, count]) => count > 1)).toEqual([]);
}

/** Runs one appending child; resolves to the ids it acknowledged, rejects on any error. */
function appendInChild(
  modules: string,
  file: string,
  writer: string,
  count: number,
): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [
      CHILD,
      modules,
      file,
      "shared",
      writer,
      String(count),
    ]);
    let output = "";
    let errors = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (errors += chunk));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0 || errors)
        return reject(new Error(`writer ${writer} (${code}): ${errors}`));
      resolve(output.trim().split("\n"));
    });
  });
}
