// openSqlite() argument and path checks against real better-sqlite3 files in a temporary directory.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSqlite } from "./open-sqlite.js";

let directory: string;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), "arbor-open-sqlite-"));
});

afterEach(() => {
  rmSync(directory, { recursive: true, force: true });
});

describe("openSqlite()", () => {
  it("opens a file and keeps what is written across handles", () => {
    const file = join(directory, "memory.db");
    const first = openSqlite(file);
    first.sql`CREATE TABLE notes (text TEXT)`;
    first.sql`INSERT INTO notes VALUES (${"kept"})`;
    first.close();
    const second = openSqlite(file);
    expect(second.sql`SELECT text FROM notes`).toEqual([{ text: "kept" }]);
    second.close();
  });

  it('opens an in-memory database only when asked for ":memory:"', () => {
    const handle = openSqlite(":memory:");
    expect(handle.database.memory).toBe(true);
    handle.close();
  });

  // Regression: without a path better-sqlite3 silently opened a temporary in-memory database.
  it.each([
    ["undefined", undefined],
    ["an empty string", ""],
    ["blank text", "  "],
  ])("refuses %s instead of opening a throwaway database", (_, filename) => {
    const open = () => openSqlite(filename as string);
    expect(open).toThrow(
      expect.objectContaining({
        name: "ArborTypeError",
        code: "INVALID_ARGUMENT",
        message: expect.stringContaining('":memory:"'),
      }),
    );
  });

  it("refuses a call without arguments", () => {
    // @ts-expect-error -- the call a JavaScript caller can make
    expect(() => openSqlite()).toThrow(
      expect.objectContaining({ code: "INVALID_ARGUMENT" }),
    );
  });

  // Regression: a directory gave better-sqlite3's bare "unable to open database file".
  it("names the path when it is a directory", () => {
    expect(() => openSqlite(directory)).toThrow(
      expect.objectContaining({
        name: "ArborError",
        code: "STORAGE_UNAVAILABLE",
        message: expect.stringContaining(directory),
      }),
    );
  });

  // Regression: a missing parent directory gave an untyped TypeError.
  it("names the path when its directory does not exist", () => {
    const file = join(directory, "missing", "memory.db");
    expect(() => openSqlite(file)).toThrow(
      expect.objectContaining({
        name: "ArborError",
        code: "STORAGE_UNAVAILABLE",
        message: expect.stringContaining(file),
      }),
    );
  });
});
