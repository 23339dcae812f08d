// Reading commands never write (docs/cli.md#what-a-command-may-write), run as users run them (the
// compiled bin in a subprocess): another application's SQLite file is refused with a typed error
// and stays byte for byte as it was, with no -wal/-shm beside it; a file that needs a schema step
// (agents@0.22, agents@0.32, an older Arbor) is refused naming `arbor migrate --db <file>`, which
// then makes it readable; and a missing file is DATABASE_NOT_FOUND, created by no reading command.
import { createHash } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  readFileSync,
  readdirSync,
  statSync,
} from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { MIGRATIONS } from "../../src/backends/sql/sql-schema.js";
import { openSqlite } from "../../src/sqlite/index.js";
import { runCli, temporaryFolder } from "./support/cli.js";

const sha256 = (file: string) =>
  createHash("sha256").update(readFileSync(file)).digest("hex");

/** The commands that only read, each naming a session where it takes one. */
const READING = [
  ["sessions", "list"],
  ["sessions", "show", "s1"],
  ["search", "hello"],
  ["tree", "s1"],
  ["history", "s1"],
  ["export", "s1"],
  ["search-index"],
];

const temporary = temporaryFolder();
afterAll(() => temporary.remove());

/** Another application's database, in SQLite's default rollback-journal mode. */
function notesDatabase(name: string): string {
  const file = join(temporary.path, name);
  const database = new Database(file);
  database.exec(
    "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO notes (text) VALUES ('buy milk')",
  );
  database.close();
  return file;
}

/** The files of the folder whose name starts with `file`'s (the database, any -wal, -shm, -journal). */
const besides = (file: string) =>
  readdirSync(temporary.path)
    .filter((name) => name.startsWith(file.split("/").at(-1)!))
    .sort();

/** Bytes in the file's write-ahead log: 0 when there is none. */
const walBytes = (file: string) =>
  existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0;

/**
 * A store as Arbor's schema version 9 left it (the step list applied up to there), with one
 * session registered: an older Arbor's file.
 */
function arborVersion9(name: string): string {
  const file = join(temporary.path, name);
  const db = openSqlite(file);
  db.sql`CREATE TABLE arbor_meta (key TEXT PRIMARY KEY, value TEXT)`;
  for (let step = 0; step < 9; step++) MIGRATIONS[step]!(db);
  db.sql`INSERT INTO arbor_meta VALUES ('session_schema_version', '9')`;
  db.sql`CREATE TABLE assistant_sessions (id TEXT PRIMARY KEY, name TEXT NOT NULL,
    parent_session_id TEXT, model TEXT, source TEXT, input_tokens INTEGER DEFAULT 0,
    output_tokens INTEGER DEFAULT 0, estimated_cost REAL DEFAULT 0, end_reason TEXT,
    created_at TEXT, updated_at TEXT)`;
  db.sql`INSERT INTO assistant_sessions (id, name, created_at, updated_at)
    VALUES ('s1', 'Written by version 9', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`;
  db.sql`PRAGMA wal_checkpoint(TRUNCATE)`;
  db.close();
  return file;
}

describe("a reading command on another application's SQLite database", () => {
  it.each(READING)(
    "arbor %s %s refuses with SCHEMA_MISSING and leaves the file byte-identical, with no -wal or -shm",
    async (...command) => {
      const file = notesDatabase(`notes-${command.join("-")}.db`);
      const before = sha256(file);
      const run = await runCli([...command, "--db", file]);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe("");
      expect(run.stderr).toMatch(
        new RegExp(`^arbor: SCHEMA_MISSING: ${file} holds no Arbor tables`),
      );
      expect(sha256(file)).toBe(before);
      expect(besides(file)).toEqual([file.split("/").at(-1)]);
    },
  );

  it("a command that changes sessions (sessions delete) refuses it too, untouched", async () => {
    const file = notesDatabase("notes-delete.db");
    const before = sha256(file);
    const run = await runCli(["sessions", "delete", "s1", "--db", file]);
    expect(run.stderr).toMatch(/^arbor: SCHEMA_MISSING: /);
    expect(sha256(file)).toBe(before);
    expect(besides(file)).toEqual(["notes-delete.db"]);
  });
});

describe("a reading command on a file that needs a schema step", () => {
  const cases: Array<[string, () => string]> = [
    [
      "agents@0.22",
      () => {
        const file = join(temporary.path, "seed-022.db");
        copyFileSync("test/legacy/__fixtures__/reference.db", file);
        return file;
      },
    ],
    [
      "agents@0.32",
      () => {
        const file = join(temporary.path, "seed-032.db");
        copyFileSync("test/legacy/__fixtures__/agents-032.db", file);
        return file;
      },
    ],
    ["an older Arbor (schema version 9)", () => arborVersion9("v9.db")],
  ];

  it.each(cases)(
    "%s: refused naming arbor migrate --db <file>, byte-identical; after the migration it reads",
    async (_, make) => {
      const file = make();
      const before = sha256(file);
      for (const command of [
        ["sessions", "list"],
        ["search", "hello"],
      ]) {
        const run = await runCli([...command, "--db", file]);
        expect(run.code).toBe(1);
        expect(run.stderr).toMatch(/^arbor: SCHEMA_MISSING: /);
        expect(run.stderr).toContain(`Run: arbor migrate --db ${file}\n`);
        // The PostgreSQL hint is not printed under it.
        expect(run.stderr).not.toContain("--postgres");
        expect(sha256(file)).toBe(before);
        // A read-only connection to a WAL file may create the -wal and -shm SQLite reads through
        // (it cannot remove them on close), but writes no frame into the -wal.
        expect(walBytes(file)).toBe(0);
      }
      const migrate = await runCli(["migrate", "--db", file]);
      expect(migrate.stderr).toBe("");
      expect(migrate.stdout).toBe(
        `SQLite schema migrated to version ${MIGRATIONS.length}: ${file}\n`,
      );
      const list = await runCli(["sessions", "list", "--db", file, "--json"]);
      expect(list.stderr).toBe("");
      expect(list.code).toBe(0);
      expect(JSON.parse(list.stdout)).toHaveProperty("sessions");
      const again = await runCli(["migrate", "--db", file]);
      expect(again.stdout).toBe(
        `SQLite schema already at version ${MIGRATIONS.length}: ${file}\n`,
      );
    },
  );
});

describe("arbor migrate --db", () => {
  it("on a path that does not exist: DATABASE_NOT_FOUND, nothing created", async () => {
    const file = join(temporary.path, "missing-migrate.db");
    const run = await runCli(["migrate", "--db", file]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^arbor: DATABASE_NOT_FOUND: No database at /);
    expect(existsSync(file)).toBe(false);
  });
});
