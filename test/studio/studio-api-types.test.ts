// The studio's API types are generated from the server's OpenAPI document: this fails when a
// schema changed and src/studio/app/api-types.generated.ts was not regenerated
// (npm run build && node scripts/studio-api-types.mjs).
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script without declarations
import * as generator from "../../scripts/studio-api-types.mjs";
import { createApp } from "../../src/server/index.js";
import { SessionManager } from "../../src/session/index.js";
import { openSqlite } from "../../src/sqlite/index.js";

describe("studio API types", () => {
  it("match the server's /openapi.json", async () => {
    const app = createApp({
      manager: SessionManager.create(openSqlite(":memory:")),
    });
    const response = await app.fetch(
      new Request("http://localhost/openapi.json"),
    );
    expect(response.status).toBe(200);
    const document = (await response.json()) as object;
    const { formattedApiTypes, GENERATED_PATH } = generator as {
      formattedApiTypes: (document: object) => Promise<string>;
      GENERATED_PATH: string;
    };
    const committed = await readFile(GENERATED_PATH, "utf8");
    expect(await formattedApiTypes(document)).toBe(committed);
  });
});
