// The load limits on a real socket (@hono/node-server on 127.0.0.1, a 300 ms request timeout):
// every request turn comes back, whatever happens to the request. Uploads that trickle in, stop
// arriving, or whose client goes away mid-body never hold a turn, so the API keeps answering
// while a hundred of them hang on; a handler that never ends gives its turn back one request
// timeout after its 503; and /ready answers 503 only while every turn is held with none coming
// back. Outcomes only (statuses and codes), each bounded by a generous timeout.
import { serve, type ServerType } from "@hono/node-server";
import net, { type AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createApp, type CreateAppOptions } from "../../src/server/index.js";
import { SessionManager } from "../../src/session/index.js";

const TIMEOUT_MS = 300;
const servers: ServerType[] = [];
const sockets: net.Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise((resolve) => {
          server.close(resolve);
          (
            server as { closeAllConnections?: () => void }
          ).closeAllConnections?.();
        }),
    ),
  );
});

async function start(
  options: Partial<CreateAppOptions> = {},
): Promise<{ port: number; manager: SessionManager; logged: string[] }> {
  const manager = options.manager ?? SessionManager.inMemory();
  const logged: string[] = [];
  const server = serve({
    fetch: createApp({
      manager,
      maxInFlight: 4,
      maxQueued: 4,
      queueTimeoutMs: 2_000,
      requestTimeoutMs: TIMEOUT_MS,
      logError: (message) => logged.push(message),
      ...options,
    }).fetch,
    hostname: "127.0.0.1",
    port: 0,
  });
  servers.push(server);
  await new Promise((resolve) => server.once("listening", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    manager,
    logged,
  };
}

/**
 * A POST whose body arrives one byte every 50 ms and never completes (Content-Length says
 * 100 000). Resolves with the status line's code once the server answers, or "closed".
 */
function trickle(port: number): {
  answered: Promise<string>;
  socket: net.Socket;
} {
  const socket = net.connect(port, "127.0.0.1");
  sockets.push(socket);
  socket.on("error", () => undefined);
  let received = "";
  let drip: ReturnType<typeof setInterval> | undefined;
  const answered = new Promise<string>((resolve) => {
    socket.on("data", (chunk) => {
      received += chunk.toString("latin1");
      const status = /^HTTP\/1\.1 (\d+)/.exec(received)?.[1];
      const code = /"code":"([A-Z_]+)"/.exec(received)?.[1];
      if (status && code) resolve(`${status} ${code}`);
    });
    socket.on("close", () => {
      clearInterval(drip);
      resolve("closed");
    });
  });
  socket.once("connect", () => {
    socket.write(
      `POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"name":"`,
    );
    drip = setInterval(() => {
      if (!socket.destroyed) socket.write("a");
    }, 50);
  });
  return { answered, socket };
}

/** A normal request: status and error code, failing the test after a generous 10 s. */
async function call(
  port: number,
  method: string,
  path: string,
  json?: unknown,
): Promise<{ status: number; code?: string; body: any }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: json === undefined ? {} : { "Content-Type": "application/json" },
    body: json === undefined ? undefined : JSON.stringify(json),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await response.json().catch(() => null)) as any;
  return { status: response.status, code: body?.error?.code, body };
}

/** Polls `check` every 50 ms until it holds, for at most 10 s. */
async function eventually(check: () => Promise<boolean>, what: string) {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`[test] never happened: ${what}`);
}

describe("request turns on a real socket", () => {
  it("serves normal requests at once while 100 uploads trickle in (no turn is held by a body still arriving)", async () => {
    // A body timeout far away: the uploads are still arriving while the API is asked.
    const { port } = await start({ bodyTimeoutMs: 60_000 });
    const uploads = Array.from({ length: 100 }, () => trickle(port));
    await new Promise((resolve) => setTimeout(resolve, 2 * TIMEOUT_MS));
    for (let index = 0; index < 8; index++) {
      const created = await call(port, "POST", "/v1/sessions", {
        name: `Normal ${index}`,
      });
      expect([created.status, created.code]).toEqual([201, undefined]);
      expect((await call(port, "GET", "/v1/sessions")).status).toBe(200);
    }
    expect((await call(port, "GET", "/ready")).status).toBe(200);
    for (const upload of uploads) upload.socket.destroy();
  });

  it("answers 408 BODY_TIMEOUT to 100 uploads still trickling past the timeout, then serves normal requests at once", async () => {
    const { port } = await start();
    const uploads = Array.from({ length: 100 }, () => trickle(port));
    const answers = await Promise.all(uploads.map((upload) => upload.answered));
    for (let index = 0; index < 8; index++) {
      const created = await call(port, "POST", "/v1/sessions", {
        name: `After ${index}`,
      });
      expect([created.status, created.code]).toEqual([201, undefined]);
    }
    expect((await call(port, "GET", "/ready")).status).toBe(200);
    expect(new Set(answers)).toEqual(new Set(["408 BODY_TIMEOUT"]));
  });

  it("gives everything back when clients go away mid-body, and when a connection closes with its body unfinished", async () => {
    const { port } = await start({ bodyTimeoutMs: 60_000 });
    const uploads = Array.from({ length: 40 }, () => trickle(port));
    await new Promise((resolve) => setTimeout(resolve, TIMEOUT_MS));
    // Half reset, half closed politely (a FIN with the body unfinished).
    uploads.forEach((upload, index) =>
      index % 2 ? upload.socket.destroy() : upload.socket.end(),
    );
    for (let index = 0; index < 8; index++)
      expect((await call(port, "GET", "/v1/sessions")).status).toBe(200);
  });

  it("bodies held at once stay within maxBodyBytes: one more answers 503 OVERLOADED, and a client gone away gives its bytes back", async () => {
    const { port } = await start({
      maxBodyBytes: 100_000,
      bodyTimeoutMs: 60_000,
    });
    // 60 000 bytes of an 80 000-byte body, then nothing.
    const held = net.connect(port, "127.0.0.1");
    sockets.push(held);
    held.on("error", () => undefined);
    held.write(
      `POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 80000\r\n\r\n{"name":"${"a".repeat(60_000)}`,
    );
    const post = async () => {
      const response = await fetch(`http://127.0.0.1:${port}/v1/sessions`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ name: "b".repeat(50_000) }),
        signal: AbortSignal.timeout(10_000),
      });
      const body = (await response.json()) as { error?: { code: string } };
      return `${response.status} ${body.error?.code ?? ""}`.trim();
    };
    await eventually(
      async () => (await post()) === "503 OVERLOADED",
      "a body over the budget answers 503 OVERLOADED",
    );
    held.destroy();
    await eventually(
      async () => !(await post()).startsWith("503"),
      "the budget is free again once the client went away",
    );
  });

  it("a handler that never ends answers 503 REQUEST_TIMEOUT and gives its turn back one timeout later", async () => {
    // A fake summarizer (injected) that never answers: compaction hangs for ever.
    const manager = SessionManager.inMemory();
    manager.onCompaction(() => new Promise(() => undefined));
    const { port } = await start({
      manager,
      maxInFlight: 2,
      maxQueued: 0,
      readyStallMs: 100,
    });
    const ids: string[] = [];
    for (let index = 0; index < 2; index++) {
      const { body } = await call(port, "POST", "/v1/sessions", {
        name: `Hang ${index}`,
      });
      for (const [turn, role] of ["user", "assistant", "user"].entries())
        await call(port, "POST", `/v1/sessions/${body.id}/messages`, {
          message: {
            id: `m${turn}`,
            role,
            parts: [{ type: "text", text: `turn ${turn}` }],
          },
        });
      ids.push(body.id);
    }
    // Saturated, but turns come back all the time: ready.
    expect((await call(port, "GET", "/ready")).status).toBe(200);
    const hung = ids.map((id) =>
      call(port, "POST", `/v1/sessions/${id}/compact`, {}),
    );
    for (const answer of await Promise.all(hung))
      expect([answer.status, answer.code]).toEqual([503, "REQUEST_TIMEOUT"]);
    // The work goes on for ever, yet its turns come back one request timeout later.
    await eventually(
      async () => (await call(port, "GET", "/v1/sessions")).status === 200,
      "a turn comes back",
    );
    expect((await call(port, "GET", "/ready")).status).toBe(200);
  });

  it("/ready answers 503 OVERLOADED while every turn is held with none given back", async () => {
    const manager = SessionManager.inMemory();
    manager.onCompaction(() => new Promise(() => undefined));
    // No request timeout: the hung compactions keep their turns.
    const { port, logged } = await start({
      manager,
      maxInFlight: 1,
      maxQueued: 0,
      requestTimeoutMs: 0,
      readyStallMs: 100,
    });
    const { body } = await call(port, "POST", "/v1/sessions", { name: "Hang" });
    for (const [turn, role] of ["user", "assistant", "user"].entries())
      await call(port, "POST", `/v1/sessions/${body.id}/messages`, {
        message: {
          id: `m${turn}`,
          role,
          parts: [{ type: "text", text: `turn ${turn}` }],
        },
      });
    const controller = new AbortController();
    void fetch(`http://127.0.0.1:${port}/v1/sessions/${body.id}/compact`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "{}",
      signal: controller.signal,
    }).catch(() => undefined);
    await eventually(async () => {
      const ready = await call(port, "GET", "/ready");
      return ready.status === 503 && ready.code === "OVERLOADED";
    }, "/ready answers 503 OVERLOADED");
    expect(logged).toEqual([expect.stringContaining("held for")]);
    // The client going away does not end the work: the turn stays held, /ready stays 503.
    controller.abort();
    expect((await call(port, "GET", "/v1/sessions")).code).toBe("OVERLOADED");
  });

  it("sheds at once, with a Retry-After from the observed service time, a request that could not get a turn before its queue deadline", async () => {
    // A fake summarizer (injected): the first compaction takes 400 ms, the next never ends.
    const manager = SessionManager.inMemory();
    let calls = 0;
    let entered: () => void = () => undefined;
    const holding = new Promise<void>((resolve) => (entered = resolve));
    manager.onCompaction(() => {
      if (calls++ === 0)
        return new Promise((resolve) => setTimeout(() => resolve(null), 400));
      entered();
      return new Promise(() => undefined);
    });
    const { port } = await start({
      manager,
      maxInFlight: 1,
      maxQueued: 50,
      queueTargetMs: 3_000,
      queueTimeoutMs: 3_000,
      requestTimeoutMs: 0,
    });
    // Written past the API, so the only turns observed are the compactions'.
    const ids: string[] = [];
    for (let index = 0; index < 2; index++) {
      const { id } = await manager.create(`Shed ${index}`);
      const session = manager.getSession(id);
      for (const [turn, role] of (
        ["user", "assistant", "user"] as const
      ).entries())
        await session.appendMessage({
          id: `m${turn}`,
          role,
          parts: [{ type: "text", text: `turn ${turn}` }],
        });
      ids.push(id);
    }
    // A turn is held for 400 ms or more: observed.
    expect(
      (await call(port, "POST", `/v1/sessions/${ids[0]}/compact`, {})).status,
    ).toBe(200);
    // The only turn is held for ever.
    const controller = new AbortController();
    void fetch(`http://127.0.0.1:${port}/v1/sessions/${ids[1]}/compact`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "{}",
      signal: controller.signal,
    }).catch(() => undefined);
    await holding;
    // Ten more: a few can be served within the 3 s queue deadline at 400 ms each, the rest
    // cannot, and hear so at once (before any queued one times out), told to come back once the
    // queue has drained: more than the constant 1 s.
    const answers = Array.from({ length: 10 }, () =>
      fetch(`http://127.0.0.1:${port}/v1/sessions`, {
        signal: controller.signal,
      }),
    );
    const first = await Promise.race(answers);
    expect(first.status).toBe(503);
    expect(
      ((await first.json()) as { error: { code: string } }).error.code,
    ).toBe("OVERLOADED");
    expect(Number(first.headers.get("retry-after"))).toBeGreaterThanOrEqual(2);
    controller.abort();
    await Promise.allSettled(answers);
  });

  it("admits to the queue what the server serves within queueTargetMs, and refuses the rest at once, well before the queue deadline", async () => {
    // A fake summarizer (injected): the first compaction takes 400 ms, the second is held until
    // the test lets it go.
    const manager = SessionManager.inMemory();
    let calls = 0;
    let entered: () => void = () => undefined;
    let release: () => void = () => undefined;
    const holding = new Promise<void>((resolve) => (entered = resolve));
    manager.onCompaction(() => {
      if (calls++ === 0)
        return new Promise((resolve) => setTimeout(() => resolve(null), 400));
      entered();
      return new Promise((resolve) => (release = () => resolve(null)));
    });
    // The queue deadline is far: only the latency target can refuse (the old policy admitted
    // every one of these, up to a minute's wait).
    const { port } = await start({
      manager,
      maxInFlight: 1,
      maxQueued: 50,
      queueTargetMs: 1_000,
      queueTimeoutMs: 60_000,
      requestTimeoutMs: 0,
    });
    const ids: string[] = [];
    for (let index = 0; index < 2; index++) {
      const { id } = await manager.create(`Target ${index}`);
      const session = manager.getSession(id);
      for (const [turn, role] of (
        ["user", "assistant", "user"] as const
      ).entries())
        await session.appendMessage({
          id: `m${turn}`,
          role,
          parts: [{ type: "text", text: `turn ${turn}` }],
        });
      ids.push(id);
    }
    expect(
      (await call(port, "POST", `/v1/sessions/${ids[0]}/compact`, {})).status,
    ).toBe(200);
    const held = call(port, "POST", `/v1/sessions/${ids[1]}/compact`, {});
    await holding;
    // Eight more, one after the other into the queue: at 400 ms or more a turn, the first two
    // or so expect to wait within a second and stay; the rest are refused at once.
    const answers: Array<Promise<Response>> = [];
    for (let index = 0; index < 8; index++)
      answers.push(fetch(`http://127.0.0.1:${port}/v1/sessions`));
    const first = await Promise.race(answers);
    expect(first.status).toBe(503);
    expect(Number(first.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    release();
    expect((await held).status).toBe(200);
    const statuses = (await Promise.all(answers)).map(
      (answer) => answer.status,
    );
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThan(
      0,
    );
    expect(statuses.filter((status) => status === 503).length).toBeGreaterThan(
      0,
    );
    expect(
      statuses.filter((status) => status !== 200 && status !== 503),
    ).toEqual([]);
  });

  it("lets sixteen requests per turn wait by default (a bound on memory), and refuses one more at once", async () => {
    const manager = SessionManager.inMemory();
    let entered: () => void = () => undefined;
    let release: () => void = () => undefined;
    const holding = new Promise<void>((resolve) => (entered = resolve));
    manager.onCompaction(() => {
      entered();
      return new Promise((resolve) => (release = () => resolve(null)));
    });
    // Nothing observed yet, so every request expects no wait: only the count can refuse.
    const { port } = await start({
      manager,
      maxInFlight: 1,
      maxQueued: undefined,
      queueTimeoutMs: 60_000,
      requestTimeoutMs: 0,
    });
    const { id } = await manager.create("Held");
    const session = manager.getSession(id);
    for (const [turn, role] of (
      ["user", "assistant", "user"] as const
    ).entries())
      await session.appendMessage({
        id: `m${turn}`,
        role,
        parts: [{ type: "text", text: `turn ${turn}` }],
      });
    const held = call(port, "POST", `/v1/sessions/${id}/compact`, {});
    await holding;
    const answers = Array.from({ length: 20 }, () =>
      fetch(`http://127.0.0.1:${port}/v1/sessions`),
    );
    // The four over the bound hear at once; the sixteen waiting are served once the turn is back.
    const refused: Response[] = [];
    await eventually(async () => {
      refused.length = 0;
      const settled = await Promise.all(
        answers.map((answer) => Promise.race([answer, Promise.resolve(null)])),
      );
      for (const answer of settled) if (answer) refused.push(answer);
      return refused.length >= 4;
    }, "four refused at once");
    release();
    expect((await held).status).toBe(200);
    const statuses = (await Promise.all(answers)).map(
      (answer) => answer.status,
    );
    expect(statuses.filter((status) => status === 503)).toHaveLength(4);
    expect(statuses.filter((status) => status === 200)).toHaveLength(16);
  });
});
