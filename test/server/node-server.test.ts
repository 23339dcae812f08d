// The app under @hono/node-server on a real socket: the event stream reaches the client, and a
// client that goes away (its socket closes) stops the session watch.
import { serve, type ServerType } from "@hono/node-server";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/server/index.js";
import { SessionManager } from "../../src/session/index.js";

const manager = SessionManager.inMemory();
let server: ServerType;
let base = "";

beforeAll(async () => {
  server = serve({
    fetch: createApp({ manager }).fetch,
    hostname: "127.0.0.1",
    port: 0,
  });
  await new Promise((resolve) => server.once("listening", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(
  () =>
    new Promise((resolve) => {
      server.close(resolve);
      (server as { closeAllConnections?: () => void }).closeAllConnections?.();
    }),
);

describe("arbor HTTP API on @hono/node-server", () => {
  it("streams change events and stops watching when the client disconnects", async () => {
    const info = await manager.create("Live");
    const session = manager.getSession(info.id);
    let stopped = 0;
    const watch = session.watch.bind(session);
    vi.spyOn(session, "watch").mockImplementation((listener) => {
      const stop = watch(listener);
      return () => {
        stopped++;
        stop();
      };
    });
    const controller = new AbortController();
    const response = await fetch(`${base}/v1/sessions/${info.id}/events`, {
      signal: controller.signal,
    });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let received = "";
    const until = async (needle: string) => {
      while (!received.includes(needle))
        received += decoder.decode((await reader.read()).value, {
          stream: true,
        });
    };
    await until("event: ready");
    await fetch(`${base}/v1/sessions/${info.id}/messages`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        message: {
          id: "u1",
          role: "user",
          parts: [{ type: "text", text: "hi" }],
        },
      }),
    });
    await until('"ids":["u1"]');
    expect(stopped).toBe(0);
    controller.abort();
    await vi.waitFor(() => expect(stopped).toBe(1), { timeout: 10_000 });
  });
});
