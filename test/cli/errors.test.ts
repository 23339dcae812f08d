// Every failure prints `arbor: <CODE>: <message>` (docs/cli.md), in-process through the CLI's
// main(): bad ids, bad --out paths, unreachable or malformed PostgreSQL URLs, files that are
// not SQLite, and reading commands on a database that does not exist or has no Arbor tables.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliInProcess as arbor } from "./support/in-process.js";
import { temporaryFolder } from "./support/folder.js";
import { seedBranchedDatabase, type Seeded } from "./support/seed.js";

/** One line: the prefix, an upper-case code, the message; no stack trace. */
const CODED_LINE = /^arbor: [A-Z][A-Z0-9_]+: \S/;

describe("arbor errors name their code", () => {
  const temporary = temporaryFolder();
  const folder = temporary.path;
  const db = join(folder, "arbor.db");
  let ids: Seeded;
  beforeAll(async () => {
    ids = await seedBranchedDatabase(db);
  });
  afterAll(() => temporary.remove());

  const expectCoded = (
    run: { code: number | null; stderr: string; stdout: string },
    code: string,
  ) => {
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(CODED_LINE);
    expect(run.stderr.startsWith(`arbor: ${code}: `)).toBe(true);
    expect(run.stderr).not.toContain("    at ");
  };

  it("keys revoke of an unknown id: API_KEY_NOT_FOUND", async () => {
    const run = await arbor(["keys", "revoke", "nope", "--db", db]);
    expectCoded(run, "API_KEY_NOT_FOUND");
    expect(run.stderr).toContain('No API key "nope" (arbor keys list');
  });

  it("export --out <folder>: OUTPUT_UNAVAILABLE, not a raw EISDIR", async () => {
    const out = join(folder, "a-folder");
    mkdirSync(out);
    const run = await arbor([
      "export",
      ids.sessionId,
      "--out",
      out,
      "--db",
      db,
    ]);
    expectCoded(run, "OUTPUT_UNAVAILABLE");
    expect(run.stderr).toContain(`--out ${out} is a folder`);
    expect(run.stderr).not.toContain("EISDIR");
  });

  it("export --all --out <file>: OUTPUT_UNAVAILABLE, not a raw EEXIST, and the file is untouched", async () => {
    const out = join(folder, "a-file.txt");
    writeFileSync(out, "keep me");
    const run = await arbor(["export", "--all", "--out", out, "--db", db]);
    expectCoded(run, "OUTPUT_UNAVAILABLE");
    expect(run.stderr).toContain(`--out ${out} is a file`);
    expect(run.stderr).not.toContain("EEXIST");
    expect(readFileSync(out, "utf8")).toBe("keep me");
  });

  it("export --out in a folder that does not exist: OUTPUT_UNAVAILABLE naming the path", async () => {
    const out = join(folder, "missing", "x.md");
    const run = await arbor([
      "export",
      ids.sessionId,
      "--out",
      out,
      "--db",
      db,
    ]);
    expectCoded(run, "OUTPUT_UNAVAILABLE");
    expect(run.stderr).toContain(`Cannot write ${out}`);
  });

  it("--postgres at a closed port: STORAGE_UNAVAILABLE naming the server and ECONNREFUSED", async () => {
    const run = await arbor([
      "sessions",
      "list",
      "--postgres",
      "postgres://postgres:secret@127.0.0.1:1/none",
    ]);
    expectCoded(run, "STORAGE_UNAVAILABLE");
    expect(run.stderr).toContain(
      "Cannot connect to PostgreSQL at 127.0.0.1:1/none",
    );
    expect(run.stderr).toContain("ECONNREFUSED");
    expect(run.stderr).not.toContain("secret");
  });

  it("--postgres 'not a url': INVALID_ARGUMENT, before any lookup", async () => {
    const run = await arbor(["sessions", "list", "--postgres", "not a url"]);
    expectCoded(run, "INVALID_ARGUMENT");
    expect(run.stderr).toContain(
      "--postgres (or DATABASE_URL) takes a URL such as postgres://",
    );
    expect(run.stderr).not.toContain("ENOTFOUND");
  });

  it("DATABASE_URL of another scheme: INVALID_ARGUMENT, without its password", async () => {
    const run = await arbor(["sessions", "list"], {
      env: { DATABASE_URL: "mysql://root:hunter2@localhost/db" },
    });
    expectCoded(run, "INVALID_ARGUMENT");
    expect(run.stderr).not.toContain("hunter2");
  });

  it("--db on a file that is not SQLite says so, and leaves the file alone", async () => {
    const notes = join(folder, "notes.txt");
    writeFileSync(notes, "my notes, not a database\n");
    for (const command of [
      ["sessions", "list"],
      ["import", "examples/sample/sample.arbor.jsonl"],
    ]) {
      const run = await arbor([...command, "--db", notes]);
      expectCoded(run, "STORAGE_UNAVAILABLE");
      expect(run.stderr).toContain(`${notes} is not a SQLite database`);
      expect(run.stderr).not.toContain("writable file path");
    }
    expect(readFileSync(notes, "utf8")).toBe("my notes, not a database\n");
  });

  it.each([
    [["sessions", "list"]],
    [["search", "deployment"]],
    [["tree", "some-session"]],
    [["history", "some-session"]],
  ])(
    "%j on a path that does not exist: DATABASE_NOT_FOUND, and nothing created",
    async (command) => {
      const missing = join(folder, "typo.db");
      const run = await arbor([...command, "--db", missing]);
      expectCoded(run, "DATABASE_NOT_FOUND");
      expect(run.stderr).toContain(`No database at ${missing}`);
      expect(existsSync(missing)).toBe(false);
      expect(existsSync(`${missing}-wal`)).toBe(false);
    },
  );

  it("an empty file is a database without Arbor's tables: a reading command leaves it empty, an import writes into it", async () => {
    const empty = join(folder, "empty.db");
    writeFileSync(empty, "");
    const run = await arbor(["sessions", "list", "--db", empty]);
    expectCoded(run, "SCHEMA_MISSING");
    expect(run.stderr).toContain(`${empty} holds no Arbor tables`);
    expect(readFileSync(empty, "utf8")).toBe("");
    const imported = await arbor([
      "import",
      "examples/sample/sample.arbor.jsonl",
      "--db",
      empty,
    ]);
    expect(imported.code).toBe(0);
    const listed = await arbor(["sessions", "list", "--db", empty]);
    expect(listed.code).toBe(0);
  });
});
