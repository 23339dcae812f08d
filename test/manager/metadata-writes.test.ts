// Session metadata limits and all-or-nothing creates on SQLite and in memory, and the HTTP
// answer to metadata over the limit (413 METADATA_TOO_LARGE, nothing created).
import { afterAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/server/index.js";
import { SessionManager } from "../../src/session/index.js";
import { openSqlite } from "../../src/sqlite/index.js";
import { client } from "../server/support/client.js";
import { metadataCases } from "./support/metadata-cases.js";

describe("metadata writes on SQLite", () => {
  const db = openSqlite(":memory:");
  afterAll(() => db.close());
  metadataCases({
    manager: () => SessionManager.create(db),
    failOnKey: async (key) => {
      // The registry's tables exist once a manager has created a session.
      await SessionManager.create(db).create("Warm-up");
      db.sql([
        `CREATE TRIGGER IF NOT EXISTS arbor_test_fail BEFORE INSERT ON assistant_config
          WHEN NEW.key = 'meta:${key}' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`,
      ] as unknown as TemplateStringsArray);
    },
  });
});

describe("metadata writes in memory", () => {
  const manager = SessionManager.inMemory();
  metadataCases({ manager: () => manager });
});

describe("metadata over the limit over HTTP", () => {
  it("answers 413 METADATA_TOO_LARGE naming the limit, and creates nothing", async () => {
    const manager = SessionManager.inMemory();
    const call = client(createApp({ manager }));
    const metadata = Object.fromEntries(
      Array.from({ length: 5_000 }, (_, index) => [`key${index}`, "value"]),
    );
    const answer = await call("POST", "/v1/sessions", {
      json: { name: "Big", metadata },
    });
    expect(answer.status).toBe(413);
    expect(answer.body.error.code).toBe("METADATA_TOO_LARGE");
    expect(answer.body.error.message).toContain("limit of 100");
    expect(await manager.list()).toEqual([]);
  });
});
