// The generated /openapi.json: a valid OpenAPI 3.1 document (checked by an independent validator),
// holding every route of the design table, with and without the API-key security scheme.
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { createApp, InMemoryApiKeyStore } from "../../src/server/index.js";
import { SessionManager } from "../../src/session/index.js";

/** The design's table (docs/decisions/2026-12-01-server-cli-formats.md), as "METHOD path". */
const DESIGN_ROUTES = `
GET /health
GET /ready
GET /v1/sessions
POST /v1/sessions
GET /v1/sessions/{id}
PATCH /v1/sessions/{id}
DELETE /v1/sessions/{id}
POST /v1/sessions/{id}/fork
GET /v1/sessions/{id}/history
GET /v1/sessions/{id}/history/recent
GET /v1/sessions/{id}/tree
POST /v1/sessions/{id}/messages
GET /v1/sessions/{id}/messages/{messageId}
PUT /v1/sessions/{id}/messages/{messageId}
DELETE /v1/sessions/{id}/messages/{messageId}
GET /v1/sessions/{id}/messages/{messageId}/branches
GET /v1/sessions/{id}/leaf
PUT /v1/sessions/{id}/leaf
GET /v1/sessions/{id}/compactions
POST /v1/sessions/{id}/compactions
POST /v1/sessions/{id}/compact
DELETE /v1/sessions/{id}/compactions/{compactionId}
GET /v1/sessions/{id}/blocks
POST /v1/sessions/{id}/blocks
GET /v1/sessions/{id}/blocks/{label}
PUT /v1/sessions/{id}/blocks/{label}
DELETE /v1/sessions/{id}/blocks/{label}
GET /v1/sessions/{id}/blocks/{label}/history
POST /v1/sessions/{id}/blocks/{label}/revert
GET /v1/sessions/{id}/prompt
POST /v1/sessions/{id}/prompt/refresh
GET /v1/sessions/{id}/context
GET /v1/sessions/{id}/search
GET /v1/search
GET /v1/sessions/{id}/export
POST /v1/import
GET /v1/sessions/{id}/events
`
  .trim()
  .split("\n");

async function documentOf(auth?: InMemoryApiKeyStore) {
  const app = createApp({
    manager: SessionManager.inMemory(),
    ...(auth ? { auth } : {}),
  });
  const response = await app.request("/openapi.json");
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, any>;
}

describe("GET /openapi.json", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    for (const document of [
      await documentOf(),
      await documentOf(new InMemoryApiKeyStore()),
    ]) {
      const result = await new Validator().validate(document);
      expect(result.errors).toBeUndefined();
      expect(result.valid).toBe(true);
      expect(document.openapi).toBe("3.1.0");
    }
  });

  it("describes every route of the design and nothing else", async () => {
    const document = await documentOf();
    const operations = Object.entries(document.paths).flatMap(
      ([path, methods]) =>
        Object.keys(methods as object).map(
          (method) => `${method.toUpperCase()} ${path}`,
        ),
    );
    expect(operations.sort()).toEqual([...DESIGN_ROUTES].sort());
  });

  it("declares the error shape, the path parameters and, with auth, the bearer scheme", async () => {
    const open = await documentOf();
    expect(open.security).toBeUndefined();
    const message = open.paths["/v1/sessions/{id}/messages/{messageId}"].get;
    expect(
      message.parameters.map((p: any) => [p.name, p.in, p.required]),
    ).toEqual([
      ["id", "path", true],
      ["messageId", "path", true],
    ]);
    expect(
      message.responses["404"].content["application/json"].schema.$ref,
    ).toBe("#/components/schemas/Error");
    const secured = await documentOf(new InMemoryApiKeyStore());
    expect(secured.security).toEqual([{ apiKey: [] }]);
    expect(secured.components.securitySchemes.apiKey).toMatchObject({
      type: "http",
      scheme: "bearer",
    });
  });

  it("is not something a bad document would also pass", async () => {
    const document = await documentOf();
    const broken = structuredClone(document);
    broken.paths["/v1/sessions"].get.responses = "not responses";
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });
});
