import { describe, expect, it } from "vitest";
import { POSTGRES_SCHEMA_VERSION } from "./postgres-meta.js";
import { MIGRATIONS } from "./postgres-migrations.js";

describe("POSTGRES_SCHEMA_VERSION", () => {
  // The providers check a database's version without loading the migrations (postgres-meta.ts),
  // so the number is written out: a step added to MIGRATIONS must raise it too.
  it("is the number of migration steps", () => {
    expect(POSTGRES_SCHEMA_VERSION).toBe(MIGRATIONS.length);
  });
});
