// What the server logs (docs/server.md#logs): a client error never logs a stack trace (a 4xx
// logs nothing, a 501 one line), a fault of the server logs its stack, and a storage outage logs
// one line when it starts and one when it ends, however requests straddle its edges.
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/server/index.js";
import { OutageLog } from "../../src/server/reliability/storage-faults.js";
import { SessionManager } from "../../src/session/index.js";
import { client } from "./support/client.js";

describe("server logs", () => {
  it("a 501 (semantic search without embeddings) logs one line per request, without a stack; a 4xx logs nothing", async () => {
    const logged: Array<{ message: string; error: unknown }> = [];
    const manager = SessionManager.inMemory();
    const call = client(
      createApp({
        manager,
        logError: (message, error) => logged.push({ message, error }),
      }),
    );
    const { id } = (
      await call("POST", "/v1/sessions", { json: { name: "Logs" } })
    ).body;
    for (let index = 0; index < 3; index++) {
      const answer = await call(
        "GET",
        `/v1/sessions/${id}/search?q=car&mode=semantic`,
      );
      expect([answer.status, answer.body.error.code]).toEqual([
        501,
        "NOT_SUPPORTED",
      ]);
    }
    expect(logged).toHaveLength(3);
    for (const { message, error } of logged) {
      expect(error).toBeUndefined();
      expect(message).not.toContain("\n");
      expect(message).toContain(
        `GET /v1/sessions/${id}/search: 501 NOT_SUPPORTED`,
      );
    }
    logged.length = 0;
    expect((await call("GET", "/v1/sessions/nope")).status).toBe(404);
    expect(
      (
        await call("POST", "/v1/sessions", {
          raw: "{not json",
          headers: { "Content-Type": "application/json" },
        })
      ).status,
    ).toBe(400);
    expect(
      (await call("POST", "/v1/sessions", { json: { name: 42 } })).status,
    ).toBe(400);
    expect(logged).toEqual([]);
  });

  it("an outage logs once when it starts and once when it ends, whatever straddles its edges", () => {
    const lines: string[] = [];
    const outage = new OutageLog((line) => lines.push(line));
    const cut = Object.assign(new Error("connect ECONNREFUSED"), {
      code: "ECONNREFUSED",
    });
    const beforeOutage = Date.now() - 10_000;
    // A request started before the outage fails: the outage starts.
    outage.failed(cut, beforeOutage);
    // Another started before the outage succeeds late (its query got through before the cut):
    // that says nothing about now.
    outage.succeeded(beforeOutage);
    outage.failed(cut, Date.now());
    expect(lines).toEqual([expect.stringContaining("storage unavailable")]);
    // A request started during the outage succeeds: over.
    outage.succeeded(Date.now());
    expect(lines).toEqual([
      expect.stringContaining("storage unavailable"),
      expect.stringContaining("storage available again"),
    ]);
    // Requests that waited through the outage fail after the recovery: part of the outage just
    // logged, not a new one; and a success after that logs nothing more.
    outage.failed(cut, beforeOutage);
    outage.failed(cut, beforeOutage + 5_000);
    outage.succeeded(Date.now());
    expect(lines).toHaveLength(2);
    expect(outage.inOutage).toBe(false);
    // A failure of a request that started after the recovery is a new outage.
    const later = Date.now() + 1;
    outage.failed(cut, later);
    expect(lines).toHaveLength(3);
    expect(lines[2]).toContain("storage unavailable");
  });
});
