// A streamed history (docs/server.md#large-answers) meeting storage faults over a real
// PostgreSQL behind a TCP proxy the test controls: a history of one window is read before the
// status is sent, so an outage after the 200 cannot cut it; a window read after the answer
// started that loses its connection mid-statement (as a database restart does) is tried again
// on a new connection, and the client gets the whole history, not a cut connection.
import { postgresBackend } from "../../src/postgres/index.js";
import postgres from "postgres";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createApp } from "../../src/server/index.js";
import { SessionManager } from "../../src/session/index.js";
import {
  createTestDatabase,
  describePostgres,
  type TestDatabase,
} from "../providers/postgres-database.js";
import { TcpProxy } from "./support/tcp-proxy.js";

/** Two windows of 50 messages. */
const MESSAGES = 60;

describePostgres(
  "a streamed history meets storage faults (postgres.js)",
  () => {
    let database: TestDatabase | undefined;
    let proxy: TcpProxy | undefined;
    let sql: postgres.Sql | undefined;
    let app: ReturnType<typeof createApp>;
    let long = "";
    let short = "";

    beforeAll(async () => {
      database = await createTestDatabase();
      const target = new URL(database.url);
      proxy = await TcpProxy.start({
        host: target.hostname,
        port: Number(target.port || 5432),
      });
      // One connection: the statement the proxy cuts is the one of the window being read.
      sql = postgres(proxy.url(database.url), {
        max: 1,
        connect_timeout: 1,
        onnotice: () => {},
      });
      const manager = SessionManager.create(postgresBackend(sql));
      app = createApp({ manager, logError: () => undefined });
      long = (await manager.create("Long")).id;
      short = (await manager.create("Short")).id;
      for (const [id, count] of [
        [long, MESSAGES],
        [short, 3],
      ] as const) {
        const session = manager.getSession(id);
        for (let index = 0; index < count; index++)
          await session.appendMessage({
            id: `m${index}`,
            role: index % 2 ? "assistant" : "user",
            parts: [{ type: "text", text: `message ${index}` }],
          });
      }
    }, 60_000);

    afterAll(async () => {
      await proxy?.restore();
      await sql?.end({ timeout: 1 });
      await proxy?.close();
      await database?.drop();
    }, 60_000);

    const ids = (count: number) =>
      Array.from({ length: count }, (_, index) => `m${index}`);

    it("a history of one window is read before the status: an outage after the 200 does not cut it", async () => {
      const answer = await app.request(`/v1/sessions/${short}/history`);
      expect(answer.status).toBe(200);
      proxy!.cut();
      try {
        const body = (await answer.json()) as {
          messages: Array<{ id: string }>;
          leafId: string;
        };
        expect(body.messages.map((message) => message.id)).toEqual(ids(3));
        expect(body.leafId).toBe("m2");
      } finally {
        await proxy!.restore();
      }
    });

    it("a window read whose connection is cut mid-statement is read again, and the answer is whole", async () => {
      // The connection the last test cut fails its next statement (postgres.js): spend that here,
      // so the cut below is the only fault this answer meets.
      await sql!`select 1`.catch(() => undefined);
      const answer = await app.request(`/v1/sessions/${long}/history`);
      expect(answer.status).toBe(200);
      const reader = answer.body!.getReader();
      const chunks: Uint8Array[] = [];
      // The first piece is the window read inside the request; the next read asks for window 2.
      const first = await reader.read();
      chunks.push(first.value);
      proxy!.stall();
      const second = reader.read();
      // The window's statement was sent and is held in the stall: cut it, as a restart does.
      while (proxy!.held === 0)
        await new Promise((resolve) => setTimeout(resolve, 5));
      proxy!.cut();
      await proxy!.restore();
      const next = await second;
      chunks.push(next.value);
      for (
        let part = await reader.read();
        !part.done;
        part = await reader.read()
      )
        chunks.push(part.value);
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
        messages: Array<{ id: string }>;
        leafId: string;
      };
      expect(body.messages.map((message) => message.id)).toEqual(ids(MESSAGES));
      expect(body.leafId).toBe(`m${MESSAGES - 1}`);
    });
  },
);
