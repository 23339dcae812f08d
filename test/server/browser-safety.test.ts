// A server without API keys trusts every request, so a web page the user opens must not be able
// to reach it: a foreign Host (DNS rebinding) answers 403 FORBIDDEN_HOST, and a write from
// another origin, or with a content type a form could send, answers 403 FORBIDDEN_ORIGIN. The
// studio (same origin) keeps importing; CORS lets configured origins in; API keys lift the guard.
import { describe, expect, it } from "vitest";
import {
  createApp,
  InMemoryApiKeyStore,
  type CreateAppOptions,
} from "../../src/server/index.js";
import { SessionManager } from "../../src/session/index.js";

/** A one-message UIMessage file; each upload gets its own text, so none is a re-import. */
let uploads = 0;
const conversationFile = () =>
  JSON.stringify([
    {
      id: "u1",
      role: "user",
      parts: [{ type: "text", text: `Hello ${++uploads}` }],
    },
  ]);

function appWith(options: Partial<CreateAppOptions> = {}) {
  const app = createApp({ manager: SessionManager.inMemory(), ...options });
  return (path: string, init: RequestInit & { host?: string } = {}) => {
    const host = init.host ?? "127.0.0.1:4820";
    return app.request(`http://${host}${path}`, {
      ...init,
      headers: { host, ...(init.headers as Record<string, string>) },
    });
  };
}

async function codeOf(response: Response): Promise<[number, string]> {
  const body = (await response.json()) as { error?: { code: string } };
  return [response.status, body.error?.code ?? "ok"];
}

describe("a server without API keys", () => {
  it("answers loopback Host names with any port, and configured names; refuses others", async () => {
    const call = appWith({ hosts: ["arbor.internal"] });
    for (const host of [
      "127.0.0.1:4820",
      "localhost:3000",
      "localhost",
      "[::1]:4820",
      "127.0.0.2",
      "arbor.internal:80",
    ])
      expect((await call("/v1/sessions", { host })).status, host).toBe(200);
    for (const host of [
      "attacker.example",
      "attacker.example:4820",
      "localhost.attacker.example",
      "127.0.0.1.nip.io",
    ]) {
      const answer = await call("/v1/sessions", { host });
      expect(await codeOf(answer), host).toEqual([403, "FORBIDDEN_HOST"]);
    }
    // Liveness says nothing about sessions, but a rebound page gets nothing at all.
    expect((await call("/health", { host: "evil.example" })).status).toBe(403);
  });

  it("refuses writes whose Origin or Sec-Fetch-Site names another site", async () => {
    const call = appWith();
    const create = (headers: Record<string, string>) =>
      call("/v1/sessions", {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ name: "x" }),
      });
    expect(
      await codeOf(await create({ origin: "https://evil.example" })),
    ).toEqual([403, "FORBIDDEN_ORIGIN"]);
    // Another port of the same machine is another origin (another local app's page).
    expect(
      await codeOf(await create({ origin: "http://127.0.0.1:3000" })),
    ).toEqual([403, "FORBIDDEN_ORIGIN"]);
    expect(await codeOf(await create({ origin: "null" }))).toEqual([
      403,
      "FORBIDDEN_ORIGIN",
    ]);
    expect(
      await codeOf(await create({ "sec-fetch-site": "cross-site" })),
    ).toEqual([403, "FORBIDDEN_ORIGIN"]);
    // The studio's own page, and API clients that send no Origin at all.
    expect((await create({ origin: "http://127.0.0.1:4820" })).status).toBe(
      201,
    );
    expect((await create({ "sec-fetch-site": "same-origin" })).status).toBe(
      201,
    );
    expect((await create({})).status).toBe(201);
    // Reads from other origins still answer (the browser keeps them from the page: no CORS).
    const read = await call("/v1/sessions", {
      headers: { origin: "https://evil.example" },
    });
    expect(read.status).toBe(200);
    expect(read.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("takes a text/plain or form import only from its own pages; the studio's upload works", async () => {
    const call = appWith();
    const upload = (type: string, headers: Record<string, string> = {}) =>
      call("/v1/import?fileName=chat.json", {
        method: "POST",
        headers: { "content-type": type, ...headers },
        body: conversationFile(),
      });
    for (const type of [
      "text/plain",
      "text/plain;charset=UTF-8",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
    ])
      expect(await codeOf(await upload(type)), type).toEqual([
        403,
        "FORBIDDEN_ORIGIN",
      ]);
    // The studio sends the file's own type from its own origin.
    const studio = await upload("text/plain", {
      origin: "http://127.0.0.1:4820",
      "sec-fetch-site": "same-origin",
    });
    expect(studio.status).toBe(201);
    expect((await upload("application/octet-stream")).status).toBe(201);
    expect((await upload("application/json")).status).toBe(201);
  });

  it("lets CORS origins in: preflight, headers on answers, and their writes", async () => {
    const call = appWith({ cors: "https://app.example" });
    const preflight = await call("/v1/sessions", {
      method: "OPTIONS",
      headers: {
        origin: "https://app.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type, idempotency-key",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe(
      "https://app.example",
    );
    expect(preflight.headers.get("access-control-allow-headers")).toContain(
      "Idempotency-Key",
    );
    const created = await call("/v1/sessions", {
      method: "POST",
      headers: {
        origin: "https://app.example",
        "content-type": "application/json",
      },
      body: JSON.stringify({ name: "From the app" }),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get("access-control-allow-origin")).toBe(
      "https://app.example",
    );
    const other = await call("/v1/sessions", {
      method: "POST",
      headers: {
        origin: "https://evil.example",
        "content-type": "application/json",
      },
      body: JSON.stringify({ name: "x" }),
    });
    expect(await codeOf(other)).toEqual([403, "FORBIDDEN_ORIGIN"]);
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("a server with API keys", () => {
  it("serves any Host and Origin: the key is what a page cannot send", async () => {
    const keys = new InMemoryApiKeyStore();
    const { key } = await keys.create("acme");
    const call = appWith({ auth: keys });
    const created = await call("/v1/sessions", {
      host: "arbor.example.com",
      method: "POST",
      headers: {
        authorization: `Bearer ${key}`,
        origin: "https://elsewhere.example",
        "content-type": "application/json",
      },
      body: JSON.stringify({ name: "x" }),
    });
    expect(created.status).toBe(201);
    const anonymous = await call("/v1/sessions", { host: "arbor.example.com" });
    expect(anonymous.status).toBe(401);
  });
});
