// Registry and message routes: create, list with cursors, get, rename, delete, fork; append with
// and without ids and parents, read, update, delete, branches.
import { expect, it } from "vitest";
import { createApp } from "../../../src/server/index.js";
import type { WithStore } from "./api-suite.js";
import { client, text } from "./client.js";

export function sessionCases(withStore: WithStore): void {
  it("creates, gets, renames, lists and deletes sessions", () =>
    withStore(async (store) => {
      const call = client(createApp({ manager: store.manager() }));
      const created = await call("POST", "/v1/sessions", {
        json: {
          name: "Trip",
          ownerId: "u1",
          metadata: { plan: "pro" },
          model: "m1",
        },
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        name: "Trip",
        ownerId: "u1",
        metadata: { plan: "pro" },
        model: "m1",
        messageCount: 0,
      });
      const { id } = created.body;
      expect((await call("GET", `/v1/sessions/${id}`)).body.name).toBe("Trip");

      const renamed = await call("PATCH", `/v1/sessions/${id}`, {
        json: { name: "Lisbon" },
      });
      expect(renamed.status).toBe(200);
      expect(renamed.body.name).toBe("Lisbon");

      for (const name of ["B", "C"])
        await call("POST", "/v1/sessions", { json: { name } });
      const first = await call("GET", "/v1/sessions?limit=2");
      expect(first.body.sessions).toHaveLength(2);
      expect(first.body.nextCursor).toEqual(expect.any(String));
      const second = await call(
        "GET",
        `/v1/sessions?limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`,
      );
      const names = [...first.body.sessions, ...second.body.sessions].map(
        (s: any) => s.name,
      );
      expect(names.sort()).toEqual(["B", "C", "Lisbon"]);
      const owned = await call("GET", "/v1/sessions?owner=u1");
      expect(owned.body.sessions.map((s: any) => s.id)).toEqual([id]);

      const deleted = await call("DELETE", `/v1/sessions/${id}`);
      expect(deleted.status).toBe(204);
      const gone = await call("GET", `/v1/sessions/${id}`);
      expect(gone.status).toBe(404);
      expect(gone.body.error.code).toBe("SESSION_NOT_FOUND");
    }));

  it("reads a history and a recent history: the messages of a session, [] for an empty one, 404 for an unknown or deleted one", () =>
    withStore(async (store) => {
      const call = client(createApp({ manager: store.manager() }));
      const history = (id: string) => call("GET", `/v1/sessions/${id}/history`);
      const empty = (
        await call("POST", "/v1/sessions", { json: { name: "E" } })
      ).body.id as string;
      expect([
        (await history(empty)).status,
        (await history(empty)).body,
      ]).toEqual([200, { messages: [], leafId: null }]);
      for (const unknown of [
        "no-such-session",
        "00000000-0000-4000-8000-000000000000",
      ]) {
        const answer = await history(unknown);
        expect([answer.status, answer.body.error?.code]).toEqual([
          404,
          "SESSION_NOT_FOUND",
        ]);
      }
      const full = (await call("POST", "/v1/sessions", { json: { name: "F" } }))
        .body.id as string;
      await call("POST", `/v1/sessions/${full}/messages`, {
        json: { message: text("h1", "Hello") },
      });
      const read = await history(full);
      expect([read.status, read.body.leafId]).toEqual([200, "h1"]);
      const recent = (id: string) =>
        call("GET", `/v1/sessions/${id}/history/recent?maxBytes=10000`);
      expect((await recent(full)).body.messages.map((m: any) => m.id)).toEqual([
        "h1",
      ]);
      expect([
        (await recent(empty)).status,
        (await recent(empty)).body.messages,
      ]).toEqual([200, []]);
      expect((await recent("no-such-session")).status).toBe(404);
      expect((await call("DELETE", `/v1/sessions/${full}`)).status).toBe(204);
      expect((await history(full)).status).toBe(404);
      expect((await recent(full)).status).toBe(404);
    }));

  it("refuses an append to an unknown or deleted session with 404 and stores nothing, with or without a parent", () =>
    withStore(async (store) => {
      const manager = store.manager();
      const call = client(createApp({ manager }));
      const append = (id: string, body: object) =>
        call("POST", `/v1/sessions/${id}/messages`, { json: body });
      const codeOf = (answer: { status: number; body: any }) => [
        answer.status,
        answer.body.error?.code,
      ];
      const { id } = (
        await call("POST", "/v1/sessions", { json: { name: "Kept" } })
      ).body;
      expect((await append(id, { message: text("k1", "Hi") })).status).toBe(
        201,
      );
      // A parent that is not in the session: the message's 404, the session exists.
      expect(
        codeOf(
          await append(id, { message: text("k2", "x"), parentId: "nope" }),
        ),
      ).toEqual([404, "MESSAGE_NOT_FOUND"]);
      expect((await call("DELETE", `/v1/sessions/${id}`)).status).toBe(204);
      for (const gone of ["never-created", id]) {
        expect(
          codeOf(await append(gone, { message: text("z1", "Hi") })),
        ).toEqual([404, "SESSION_NOT_FOUND"]);
        expect(
          codeOf(
            await append(gone, { message: text("z2", "Hi"), parentId: "k1" }),
          ),
        ).toEqual([404, "SESSION_NOT_FOUND"]);
        expect(await manager.get(gone)).toBeNull();
        expect(await manager.getHistory(gone)).toEqual([]);
        expect((await call("GET", `/v1/sessions/${gone}`)).status).toBe(404);
      }
      expect(
        (await call("GET", "/v1/sessions")).body.sessions.map((s: any) => s.id),
      ).toEqual([]);
    }));

  it("appends messages under the active leaf, a parent, or as a new root", () =>
    withStore(async (store) => {
      const call = client(createApp({ manager: store.manager() }));
      const { id } = (
        await call("POST", "/v1/sessions", { json: { name: "Chat" } })
      ).body;
      const path = `/v1/sessions/${id}/messages`;
      const u1 = await call("POST", path, {
        json: { message: text("u1", "Hi") },
      });
      expect(u1.status).toBe(201);
      expect(u1.body.message).toMatchObject({ id: "u1", role: "user" });
      const generated = await call("POST", path, {
        json: { message: text(undefined, "Hello", "assistant") },
      });
      expect(generated.body.message.id).toEqual(expect.any(String));
      const a1 = generated.body.message.id;
      await call("POST", path, {
        json: {
          message: text("a2", "Other answer", "assistant"),
          parentId: "u1",
        },
      });
      await call("POST", path, {
        json: { message: text("r2", "Fresh start"), parentId: null },
      });

      const branches = await call("GET", `${path}/u1/branches`);
      expect(branches.body.messages.map((m: any) => m.id)).toEqual([a1, "a2"]);
      const history = await call("GET", `/v1/sessions/${id}/history`);
      expect(history.body).toMatchObject({ leafId: "r2" });
      expect(history.body.messages.map((m: any) => m.id)).toEqual(["r2"]);
      const session = await call("GET", `/v1/sessions/${id}`);
      expect(session.body.messageCount).toBe(4);

      // A taken id with another body (docs/server.md#messages; retries: cases-append-races.ts).
      const duplicate = await call("POST", path, {
        json: { message: text("u1", "again") },
      });
      expect(duplicate.status).toBe(409);
      expect(duplicate.body.error.code).toBe("MESSAGE_EXISTS");
      const orphan = await call("POST", path, {
        json: { message: text("x", "?"), parentId: "nope" },
      });
      expect(orphan.status).toBe(404);
      expect(orphan.body.error.code).toBe("MESSAGE_NOT_FOUND");
      expect((await call("GET", `${path}/x`)).status).toBe(404);
    }));

  it("reads, replaces and deletes one message", () =>
    withStore(async (store) => {
      const call = client(createApp({ manager: store.manager() }));
      const { id } = (
        await call("POST", "/v1/sessions", { json: { name: "Chat" } })
      ).body;
      const path = `/v1/sessions/${id}/messages`;
      for (const [mid, words] of [
        ["u1", "Hi"],
        ["a1", "Hello"],
        ["u2", "Bye"],
      ] as const)
        await call("POST", path, { json: { message: text(mid, words) } });

      const got = await call("GET", `${path}/a1`);
      expect(got.body.message.parts).toEqual([{ type: "text", text: "Hello" }]);
      const replaced = await call("PUT", `${path}/a1`, {
        json: { message: text(undefined, "Hey", "assistant") },
      });
      expect(replaced.status).toBe(200);
      expect(replaced.body.message).toMatchObject({
        id: "a1",
        role: "assistant",
        parts: [{ type: "text", text: "Hey" }],
      });
      const mismatch = await call("PUT", `${path}/a1`, {
        json: { message: text("u2", "x") },
      });
      expect(mismatch.status).toBe(400);
      expect(mismatch.body.error.message).toContain("u2");
      expect(
        (
          await call("PUT", `${path}/zz`, {
            json: { message: text(undefined, "x") },
          })
        ).status,
      ).toBe(404);

      expect((await call("DELETE", `${path}/a1`)).status).toBe(204);
      expect((await call("DELETE", `${path}/a1`)).status).toBe(404);
      const history = await call("GET", `/v1/sessions/${id}/history`);
      expect(history.body.messages.map((m: any) => m.id)).toEqual(["u1", "u2"]);
    }));

  it("forks a session at a message", () =>
    withStore(async (store) => {
      const call = client(createApp({ manager: store.manager() }));
      const { id } = (
        await call("POST", "/v1/sessions", {
          json: { name: "Chat", ownerId: "o" },
        })
      ).body;
      for (const mid of ["u1", "a1", "u2"])
        await call("POST", `/v1/sessions/${id}/messages`, {
          json: { message: text(mid, mid) },
        });
      const fork = await call("POST", `/v1/sessions/${id}/fork`, {
        json: { messageId: "a1" },
      });
      expect(fork.status).toBe(201);
      expect(fork.body).toMatchObject({
        name: "Chat (fork)",
        parent_session_id: id,
        ownerId: "o",
        messageCount: 2,
      });
      const history = await call("GET", `/v1/sessions/${fork.body.id}/history`);
      expect(history.body.messages.map((m: any) => m.parts[0].text)).toEqual([
        "u1",
        "a1",
      ]);
      const missing = await call("POST", `/v1/sessions/${id}/fork`, {
        json: { messageId: "nope" },
      });
      expect(missing.status).toBe(404);
      expect(missing.body.error.code).toBe("MESSAGE_NOT_FOUND");
    }));

  it("lists the top level (parent=none) and the sessions a session started (parent=<id>), each row with its childCount", () =>
    withStore(async (store) => {
      const call = client(createApp({ manager: store.manager() }));
      const { id } = (
        await call("POST", "/v1/sessions", { json: { name: "Root" } })
      ).body;
      for (const mid of ["u1", "a1"])
        await call("POST", `/v1/sessions/${id}/messages`, {
          json: { message: text(mid, mid) },
        });
      const forks: string[] = [];
      for (let index = 0; index < 3; index++)
        forks.push(
          (
            await call("POST", `/v1/sessions/${id}/fork`, {
              json: { messageId: "a1", name: `Fork ${index}` },
            })
          ).body.id,
        );
      const other = (
        await call("POST", "/v1/sessions", { json: { name: "Other" } })
      ).body.id;
      // Forks were written last: without the filter they fill the first page. Rows written in
      // one millisecond share their time, so only which rows come first is asserted, not their
      // order among themselves.
      const flat = await call("GET", "/v1/sessions?limit=2");
      expect(flat.body.sessions).toHaveLength(2);
      for (const row of flat.body.sessions)
        expect(["Other", "Fork 0", "Fork 1", "Fork 2"]).toContain(row.name);
      const top = await call("GET", "/v1/sessions?parent=none&limit=2");
      expect(top.status).toBe(200);
      const byId = (a: [string, number], b: [string, number]) =>
        a[0] < b[0] ? -1 : 1;
      expect(
        top.body.sessions
          .map((row: any) => [row.id, row.childCount] as [string, number])
          .sort(byId),
      ).toEqual(
        (
          [
            [other, 0],
            [id, 3],
          ] as [string, number][]
        ).sort(byId),
      );
      expect(top.body.nextCursor).toEqual(expect.any(String));
      const rest = await call(
        "GET",
        `/v1/sessions?parent=none&limit=2&cursor=${encodeURIComponent(top.body.nextCursor)}`,
      );
      expect(rest.body.sessions).toEqual([]);
      const children = await call("GET", `/v1/sessions?parent=${id}`);
      expect(children.body.sessions.map((row: any) => row.id).sort()).toEqual(
        [...forks].sort(),
      );
      expect(
        children.body.sessions.every(
          (row: any) => row.parent_session_id === id && row.childCount === 0,
        ),
      ).toBe(true);
      expect(
        (await call("GET", "/v1/sessions?parent=unknown")).body.sessions,
      ).toEqual([]);
      // The parent erased, its forks are top-level rows.
      expect((await call("DELETE", `/v1/sessions/${id}`)).status).toBe(204);
      const after = await call("GET", "/v1/sessions?parent=none");
      expect(after.body.sessions.map((row: any) => row.id).sort()).toEqual(
        [other, ...forks].sort(),
      );
    }));
}
