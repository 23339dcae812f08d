// The shapes a `sql` store's failures come in where a real one cannot be made to fail here: a
// Durable Object names the SQLite code in its message only and marks storage errors worth retrying
// with `retryable` / `overloaded`. better-sqlite3's own busy error is met for real in
// test/session/storage-errors.test.ts.
import { describe, expect, it } from "vitest";
import { ArborError } from "../../session/errors/index.js";
import { mapSqlErrors, sqlError } from "./sql-errors.js";

const codeOf = (error: unknown) => (error as { code?: unknown }).code;

describe("sqlError", () => {
  it("reads a Durable Object's SQLite code from its words, and its retry marks", () => {
    for (const fault of [
      new Error("database is locked: SQLITE_BUSY"),
      new Error("database table is locked: SQLITE_LOCKED"),
      Object.assign(new Error("Network connection lost."), { retryable: true }),
      Object.assign(new Error("Durable Object is overloaded."), {
        overloaded: true,
      }),
    ]) {
      const mapped = sqlError(fault);
      expect(codeOf(mapped), fault.message).toBe("STORAGE_UNAVAILABLE");
      expect((mapped as Error).cause).toBe(fault);
    }
    const refused = new Error(
      "UNIQUE constraint failed: t.id: SQLITE_CONSTRAINT",
    );
    expect(codeOf(sqlError(refused))).toBe("STORAGE_ERROR");
  });

  it("keeps Arbor's own errors as they are", () => {
    const own = new ArborError("SESSION_EXISTS", "taken");
    expect(sqlError(own)).toBe(own);
  });
});

describe("mapSqlErrors", () => {
  it("maps what leaves a method, thrown or rejected, and keeps results and `this`", async () => {
    class Store {
      readonly name = "store";
      fails(): never {
        throw Object.assign(new Error("database is locked"), {
          code: "SQLITE_BUSY",
        });
      }
      async rejects(): Promise<never> {
        await Promise.resolve();
        throw new TypeError("The database connection is not open");
      }
      answers(): string {
        return this.name;
      }
    }
    mapSqlErrors(Store.prototype);
    const store = new Store();
    expect(store.answers()).toBe("store");
    expect(() => store.fails()).toThrow(
      expect.objectContaining({ code: "STORAGE_UNAVAILABLE" }),
    );
    await expect(store.rejects()).rejects.toMatchObject({
      code: "STORAGE_ERROR",
      cause: expect.any(TypeError) as TypeError,
    });
  });
});
