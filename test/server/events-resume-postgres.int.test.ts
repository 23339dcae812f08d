// The event stream resumes on PostgreSQL (docs/server.md, "Events"): two server processes over
// one database (two apps, each with its own pool and change reader); a client streams from the
// first, which goes away; writes land through the second; the client comes back to the second
// with Last-Event-ID and gets exactly what it missed, then live changes.
import { postgresBackend } from "../../src/postgres/index.js";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createApp } from "../../src/server/index.js";
import { SessionManager } from "../../src/session/index.js";
import {
  createTestDatabase,
  describePostgres,
  type TestDatabase,
} from "../providers/postgres-database.js";

describePostgres("GET /v1/sessions/{id}/events resumes on PostgreSQL", () => {
  let database: TestDatabase;
  const pools: pg.Pool[] = [];
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await Promise.allSettled(pools.map((pool) => pool.end()));
    await database?.drop();
  });

  /** One server process: its own pool, manager and app. */
  function server() {
    const pool = new pg.Pool({ connectionString: database.url, max: 4 });
    pool.on("error", () => undefined);
    pools.push(pool);
    const manager = SessionManager.create(postgresBackend(pool));
    return { manager, app: createApp({ manager }) };
  }

  it("a client that left one process resumes on another with Last-Event-ID, missing nothing", async () => {
    const first = server();
    const second = server();
    const info = await first.manager.create("Live");
    const post = (app: ReturnType<typeof createApp>, id: string) =>
      app.fetch(
        new Request(`http://127.0.0.1/v1/sessions/${info.id}/messages`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({
            message: { id, role: "user", parts: [{ type: "text", text: id }] },
          }),
        }),
      );
    const seen = await changes(first.app, info.id, 1, {}, () =>
      post(first.app, "u1"),
    );
    expect(seen.map((event) => event.ids[0])).toEqual(["u1"]);
    for (const id of ["u2", "u3"])
      expect((await post(second.app, id)).status).toBe(201);
    const resumed = await changes(
      second.app,
      info.id,
      3,
      { "Last-Event-ID": seen[0]!.id },
      () => post(first.app, "u4"),
    );
    expect(resumed.map((event) => event.ids[0])).toEqual(["u2", "u3", "u4"]);
  });
});

/** Reads the session's event stream until `count` changes arrived, then disconnects. */
async function changes(
  app: ReturnType<typeof createApp>,
  sessionId: string,
  count: number,
  headers: Record<string, string>,
  during: () => unknown,
): Promise<Array<{ id: string; ids: string[] }>> {
  const controller = new AbortController();
  const response = await app.fetch(
    new Request(`http://127.0.0.1/v1/sessions/${sessionId}/events`, {
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
        ids: (JSON.parse(/^data: (.*)$/m.exec(block)![1]!) as { ids: string[] })
          .ids,
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
      await during();
    }
  }
  controller.abort();
  await reader.cancel().catch(() => undefined);
  return events();
}
