// The event stream resumes (docs/server.md, "Events"): each change carries `id:` (its seq), and a
// client that comes back with `Last-Event-ID`, to a restarted server on the same SQLite file,
// first gets every change written while it was away, once each, then the live ones.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/server/index.js";
import { SessionManager } from "../../src/session/index.js";
import { openSqlite } from "../../src/sqlite/open-sqlite.js";

const folder = mkdtempSync(join(tmpdir(), "arbor-events-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const message = (id: string) => ({
  message: { id, role: "user", parts: [{ type: "text", text: id }] },
});

/** One server process over the file: its own connection, manager and app. */
function server(file: string) {
  const database = openSqlite(file);
  const manager = SessionManager.create(database);
  return {
    manager,
    app: createApp({ manager }),
    close: () => database.close(),
  };
}

/** Reads an event stream until `count` change events arrived, then disconnects. */
async function changes(
  app: ReturnType<typeof createApp>,
  path: string,
  count: number,
  headers: Record<string, string> = {},
  during?: () => unknown,
): Promise<
  Array<{ id: string; data: { type: string; ids: string[]; seq: number } }>
> {
  const controller = new AbortController();
  const response = await app.fetch(
    new Request(`http://127.0.0.1${path}`, {
      headers,
      signal: controller.signal,
    }),
  );
  expect(response.status).toBe(200);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const events = () =>
    text
      .split("\n\n")
      .filter((block) => block.includes("event: change"))
      .map((block) => ({
        id: /^id: (.*)$/m.exec(block)![1]!,
        data: JSON.parse(/^data: (.*)$/m.exec(block)![1]!),
      }));
  // A bound on waiting for what must come, not a duration under test: generous, so a loaded
  // machine is slow rather than failing; it returns as soon as the events are there.
  const deadline = Date.now() + 20_000;
  let started = false;
  while (events().length < count && Date.now() < deadline) {
    const chunk = await reader.read();
    if (chunk.done) break;
    text += decoder.decode(chunk.value, { stream: true });
    if (!started && text.includes("event: ready")) {
      started = true;
      await during?.();
    }
  }
  controller.abort();
  await reader.cancel().catch(() => undefined);
  return events();
}

describe("GET /v1/sessions/{id}/events resumes", () => {
  it("after a server restart with Last-Event-ID: every missed change once, then live ones", async () => {
    const file = join(folder, "restart.db");
    const first = server(file);
    const info = await first.manager.create("Live");
    const post = (app: ReturnType<typeof createApp>, id: string) =>
      app.fetch(
        new Request(`http://127.0.0.1/v1/sessions/${info.id}/messages`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify(message(id)),
        }),
      );
    const seen = await changes(
      first.app,
      `/v1/sessions/${info.id}/events`,
      1,
      {},
      () => post(first.app, "u1"),
    );
    expect(seen.map((event) => event.data.ids)).toEqual([["u1"]]);
    expect(seen[0]!.id).toBe(String(seen[0]!.data.seq));
    first.close(); // the server is gone

    // Another process writes meanwhile, to this session and to another one.
    const writer = server(file);
    expect((await post(writer.app, "u2")).status).toBe(201);
    expect((await post(writer.app, "u3")).status).toBe(201);
    const other = await writer.manager.create("Other");
    await writer.manager
      .getSession(other.id)
      .appendMessage(message("x").message);

    const second = server(file);
    try {
      const resumed = await changes(
        second.app,
        `/v1/sessions/${info.id}/events`,
        3,
        { "Last-Event-ID": seen[0]!.id },
        () => post(writer.app, "u4"),
      );
      expect(resumed.map((event) => event.data.ids[0])).toEqual([
        "u2",
        "u3",
        "u4",
      ]);
      // `?after=` does the same for a client that starts afresh.
      const fromQuery = await changes(
        second.app,
        `/v1/sessions/${info.id}/events?after=${resumed[1]!.id}`,
        1,
      );
      expect(fromQuery.map((event) => event.data.ids[0])).toEqual(["u4"]);
    } finally {
      writer.close();
      second.close();
    }
  });

  it("the ready event's id resumes a client that left before its first change", async () => {
    const { manager, app, close } = server(join(folder, "ready.db"));
    try {
      const info = await manager.create("Early");
      const controller = new AbortController();
      const response = await app.fetch(
        new Request(`http://127.0.0.1/v1/sessions/${info.id}/events`, {
          signal: controller.signal,
        }),
      );
      const reader = response.body!.getReader();
      let text = "";
      while (!text.includes("event: ready"))
        text += new TextDecoder().decode((await reader.read()).value);
      controller.abort();
      await reader.cancel().catch(() => undefined);
      const ready = /^id: (.*)$/m.exec(text)?.[1];
      expect(ready).toBeDefined();
      await manager.getSession(info.id).appendMessage(message("gone").message);
      const resumed = await changes(app, `/v1/sessions/${info.id}/events`, 1, {
        "Last-Event-ID": ready!,
      });
      expect(resumed.map((event) => event.data.ids[0])).toEqual(["gone"]);
    } finally {
      close();
    }
  });

  it("answers 400 INVALID_ARGUMENT for a Last-Event-ID that is no position of the store", async () => {
    const { manager, app, close } = server(join(folder, "bad.db"));
    try {
      const info = await manager.create("Bad");
      const response = await app.fetch(
        new Request(`http://127.0.0.1/v1/sessions/${info.id}/events`, {
          headers: { "Last-Event-ID": "not-a-position" },
        }),
      );
      expect(response.status).toBe(400);
      const body = (await response.json()) as { error: { code: string } };
      expect(body.error.code).toBe("INVALID_ARGUMENT");
    } finally {
      close();
    }
  });
});
