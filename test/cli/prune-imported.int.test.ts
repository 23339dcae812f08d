// `arbor prune --older-than` right after an import (docs/behavior/erase-and-retention.md#prune):
// an imported conversation keeps its own (2024) dates, but its age counts from when it entered
// this store, so the prune keeps it; a dry run lists each session with the date its age counts
// from. The compiled bin in a subprocess, on SQLite and on PostgreSQL.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTestDatabase,
  describePostgres,
  type TestDatabase,
} from "../providers/postgres-database.js";
import { runCli, temporaryFolder } from "./support/cli.js";

const CHATGPT = "test/cli/fixtures/chatgpt-conversations.json";

interface PruneJson {
  sessions: number;
  sessionIds: string[];
  prunedSessions: Array<{ id: string; name: string; activeAt: string }>;
}

function pruneCases(store: () => string[]): void {
  let sessionId: string;
  let importedFrom: string;

  beforeAll(async () => {
    importedFrom = new Date().toISOString();
    const imported = await runCli(["import", CHATGPT, ...store()]);
    expect(imported.code, imported.stderr).toBe(0);
    sessionId = imported.stdout.split(/\s+/)[0]!;
    const listed = await runCli(["sessions", "list", "--json", ...store()]);
    const [row] = (
      JSON.parse(listed.stdout) as {
        sessions: Array<{ id: string; updated_at: string }>;
      }
    ).sessions;
    // The conversation keeps its own date: the precondition of the case.
    expect(row).toMatchObject({ id: sessionId });
    expect(row!.updated_at.startsWith("2024-12-01")).toBe(true);
  });

  it("--older-than 90d right after the import keeps what was imported, dry run or not", async () => {
    const dry = await runCli([
      "prune",
      "--older-than",
      "90d",
      "--dry-run",
      "--json",
      ...store(),
    ]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({
      sessions: 0,
      sessionIds: [],
      prunedSessions: [],
    });
    const real = await runCli(["prune", "--older-than", "90d", ...store()]);
    expect(real.code, real.stderr).toBe(0);
    expect(real.stdout).toContain("Nothing to prune.");
    const listed = await runCli(["sessions", "list", "--json", ...store()]);
    expect(
      (JSON.parse(listed.stdout) as { sessions: Array<{ id: string }> })
        .sessions,
    ).toEqual([expect.objectContaining({ id: sessionId })]);
  });

  it("a dry run lists each session with the date its age counts from: the import, not 2024", async () => {
    const json = await runCli([
      "prune",
      "--older-than",
      "2999-01-01",
      "--dry-run",
      "--json",
      ...store(),
    ]);
    expect(json.code, json.stderr).toBe(0);
    const receipt = JSON.parse(json.stdout) as PruneJson;
    expect(receipt.prunedSessions).toEqual([
      {
        id: sessionId,
        name: "Sourdough starter",
        activeAt: expect.any(String),
      },
    ]);
    const activeAt = receipt.prunedSessions[0]!.activeAt;
    expect(activeAt >= importedFrom).toBe(true);
    const text = await runCli([
      "prune",
      "--older-than",
      "2999-01-01",
      "--dry-run",
      ...store(),
    ]);
    expect(text.stdout).toMatch(
      new RegExp(
        `^${sessionId}\\s+${activeAt.slice(0, 19).replace("T", " ")}\\s+Sourdough starter$`,
        "m",
      ),
    );
  });
}

describe("arbor prune after an import (SQLite)", () => {
  const folder = temporaryFolder();
  afterAll(() => folder.remove());
  pruneCases(() => ["--db", join(folder.path, "memory.db")]);
});

describePostgres("arbor prune after an import (PostgreSQL)", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.drop());
  pruneCases(() => ["--postgres", database.url]);
});
