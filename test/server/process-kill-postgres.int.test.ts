// The fault run of `npm run bench:server`, short, as a test: two `arbor serve` processes over one
// PostgreSQL database under concurrent writes and reads, one killed with SIGKILL mid-load. Every
// request a client sends is retried on the other process when it gets no answer or a 5xx (a POST
// with the same message id). Afterwards: the survivor still serves, every acknowledged write is
// stored exactly once, nothing was stored that no retry acknowledged, and no answer was a 500.
import { afterAll, beforeAll, expect, it } from "vitest";
import { startServe, type ServeProcess } from "../cli/support/cli.js";
import {
  createTestDatabase,
  describePostgres,
  type TestDatabase,
} from "../providers/postgres-database.js";

const SESSIONS = 10;
const CLIENTS = 8;

describePostgres(
  "two arbor serve processes over PostgreSQL, one killed under load",
  () => {
    let database: TestDatabase;
    const servers: ServeProcess[] = [];
    beforeAll(async () => {
      database = await createTestDatabase();
      for (let index = 0; index < 2; index++)
        servers.push(
          await startServe(["--postgres", database.url, "--skip-sample"]),
        );
    }, 60_000);
    afterAll(async () => {
      await Promise.all(servers.map((server) => server.stop("SIGKILL")));
      await database?.drop();
    });

    it("loses no acknowledged write, duplicates none, and the survivor keeps serving", async () => {
      const ids: string[] = [];
      for (let index = 0; index < SESSIONS; index++) {
        const created = await fetch(`${servers[index % 2]!.url}/v1/sessions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ name: `Load ${index}` }),
        });
        expect(created.status).toBe(201);
        ids.push(((await created.json()) as { id: string }).id);
      }
      const killed = servers[0]!;
      let dead = false;
      const statuses = new Map<number, number>();
      const acknowledged = new Map(ids.map((id) => [id, new Set<string>()]));
      let sent = 0;
      /** Sends to a live process, round robin; on no answer or a 5xx, again to the next one. */
      let turn = 0;
      const send = async (
        path: string,
        init?: RequestInit,
      ): Promise<number> => {
        for (let attempt = 0; attempt < 6; attempt++) {
          const live = dead ? [servers[1]!] : servers;
          const server = live[turn++ % live.length]!;
          try {
            const answer = await fetch(server.url + path, init);
            await answer.arrayBuffer();
            statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
            if (answer.status < 500) return answer.status;
          } catch {
            // The killed process: no answer. Retried on the other one.
          }
        }
        return 0;
      };
      let stop = false;
      const client = async (lane: number) => {
        for (let step = 0; !stop; step++) {
          const sessionId = ids[(lane + step) % ids.length]!;
          if (step % 3 === 2) {
            expect(await send(`/v1/sessions/${sessionId}/history`)).toBe(200);
            continue;
          }
          const messageId = `c${lane}-${step}`;
          const status = await send(`/v1/sessions/${sessionId}/messages`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({
              message: {
                id: messageId,
                role: "user",
                parts: [{ type: "text", text: `turn ${messageId}` }],
              },
            }),
          });
          sent++;
          // 201 the first time; 200 when a retry finds the write its cut request committed.
          expect([200, 201]).toContain(status);
          acknowledged.get(sessionId)!.add(messageId);
        }
      };
      const clients = Array.from({ length: CLIENTS }, (_, lane) =>
        client(lane),
      );
      while (sent < 60) await new Promise((resolve) => setTimeout(resolve, 10));
      await killed.stop("SIGKILL");
      dead = true;
      const atKill = sent;
      while (sent < atKill + 60)
        await new Promise((resolve) => setTimeout(resolve, 10));
      stop = true;
      await Promise.all(clients);

      expect(statuses.get(500) ?? 0).toBe(0);
      const { rows } = await database.pool.query<{
        session_id: string;
        id: string;
        copies: string;
      }>(
        "SELECT session_id, id, COUNT(*) AS copies FROM assistant_messages GROUP BY session_id, id",
      );
      const stored = new Map(ids.map((id) => [id, new Set<string>()]));
      for (const row of rows) {
        expect(Number(row.copies), `${row.session_id}/${row.id}`).toBe(1);
        stored.get(row.session_id)!.add(row.id);
      }
      for (const id of ids) {
        expect(
          [...acknowledged.get(id)!].filter((m) => !stored.get(id)!.has(m)),
        ).toEqual([]);
        expect(
          [...stored.get(id)!].filter((m) => !acknowledged.get(id)!.has(m)),
        ).toEqual([]);
      }
      // The survivor answers as before.
      const history = await fetch(
        `${servers[1]!.url}/v1/sessions/${ids[0]}/history`,
      );
      expect(history.status).toBe(200);
    }, 60_000);
  },
);
