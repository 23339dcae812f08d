// openSqlite() argument and path checks against real better-sqlite3 files in a temporary directory.
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from "node:fs";
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

  /** vitest's `expect.stringContaining`, typed as the opaque matcher it is (vitest says `any`). */
  const containing = (text: string): unknown => expect.stringContaining(text);

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
        message: containing('":memory:"'),
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
        message: containing(directory),
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
        message: containing(file),
      }),
    );
  });

  describe("{ readonly: true }", () => {
    it("reads a file without changing it: the journal mode stays, a write fails", () => {
      const file = join(directory, "notes.db");
      const writer = openSqlite(file);
      writer.sql`PRAGMA journal_mode = DELETE`;
      writer.sql`CREATE TABLE notes (text TEXT)`;
      writer.sql`INSERT INTO notes VALUES (${"kept"})`;
      writer.close();
      const before = readFileSync(file);
      const reader = openSqlite(file, { readonly: true });
      expect(reader.sql`SELECT text FROM notes`).toEqual([{ text: "kept" }]);
      expect(reader.database.pragma("journal_mode", { simple: true })).toBe(
        "delete",
      );
      expect(() => reader.sql`INSERT INTO notes VALUES (${"no"})`).toThrow(
        expect.objectContaining({ code: "SQLITE_READONLY" }),
      );
      reader.close();
      expect(readFileSync(file).equals(before)).toBe(true);
      expect(readdirSync(directory)).toEqual(["notes.db"]);
    });

    it("never creates a missing file: STORAGE_UNAVAILABLE naming it", () => {
      const file = join(directory, "missing.db");
      expect(() => openSqlite(file, { readonly: true })).toThrow(
        expect.objectContaining({
          code: "STORAGE_UNAVAILABLE",
          message: containing(file),
        }),
      );
      expect(existsSync(file)).toBe(false);
    });
  });
});
