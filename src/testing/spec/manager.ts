import { caught, messageOf, summarizeError } from "../helpers.js";
import type { ManagerSuite } from "../manager-suite.js";
import { ISO, text, ids, pause } from "./manager-support.js";

/** The SessionManager on one backend (docs/behavior/manager.md). */
export function managerSpec(suite: ManagerSuite): void {
  const { expect } = suite;

  suite.describe("lifecycle", () => {
    suite.it("creates, reads, renames and deletes sessions", async (store) => {
      const manager = store.manager();
      const info = await manager.create("Trip", {
        model: "m-1",
        source: "web",
      });
      expect(info).toEqual({
        id: info.id,
        name: "Trip",
        parent_session_id: null,
        model: "m-1",
        source: "web",
        input_tokens: 0,
        output_tokens: 0,
        estimated_cost: 0,
        end_reason: null,
        created_at: info.created_at,
        updated_at: info.updated_at,
      });
      expect(ISO.test(info.created_at)).toBe(true);
      expect(await manager.get(info.id)).toEqual(info);
      await manager.rename(info.id, "Trip to Kyoto");
      expect((await manager.get(info.id))!.name).toBe("Trip to Kyoto");
      expect(await manager.delete(info.id)).toBe(true);
      expect(await manager.get(info.id)).toBeNull();
      expect(await manager.delete(info.id)).toBe(false);
    });

    suite.it(
      "answers unknown ids as docs/behavior/manager.md says, with exact errors",
      async (store) => {
        const manager = store.manager();
        expect(await manager.get("ghost")).toBeNull();
        expect(await manager.getHistory("ghost")).toEqual([]);
        expect(await manager.getBranches("ghost", "x")).toEqual([]);
        expect(await manager.getCompactions("ghost")).toEqual([]);
        expect(await manager.getMessageCount("ghost")).toBe(0);
        expect(await manager.delete("ghost")).toBe(false);
        const calls: Array<[string, () => Promise<unknown>]> = [
          ["rename", () => manager.rename("ghost", "x")],
          ["addUsage", () => manager.addUsage("ghost", 1, 1, 0.1)],
          ["setMetadata", () => manager.setMetadata("ghost", "k", "v")],
          ["setOwner", () => manager.setOwner("ghost", "u")],
          ["exportSession", () => manager.exportSession("ghost")],
          ["compactAndSplit", () => manager.compactAndSplit("ghost", "s")],
          ["fork", () => manager.fork("ghost", "m", "f")],
        ];
        for (const [name, call] of calls) {
          const error = await caught(call);
          expect({
            name,
            code: summarizeError(error).code,
            message: messageOf(error),
          }).toEqual({
            name,
            code: "SESSION_NOT_FOUND",
            message: 'Session "ghost" not found',
          });
        }
        expect(await manager.list()).toEqual([]);
      },
    );

    suite.it(
      "lists a session written without the manager, registered by its first message",
      async (store) => {
        if (!store.sessionWithoutManager) return;
        const direct = store.sessionWithoutManager("chat-1");
        const manager = store.manager();
        expect(await manager.list()).toEqual([]);
        await direct.appendMessage(text("u1", "Hello"));
        await direct.appendMessage(text("a1", "Hi there"));

        const listed = await manager.list();
        expect(listed.map((info) => [info.id, info.name])).toEqual([
          ["chat-1", "chat-1"],
        ]);
        const info = (await manager.get("chat-1"))!;
        expect(ISO.test(info.created_at)).toBe(true);
        expect(info.updated_at >= info.created_at).toBe(true);
        expect(ids(await manager.getHistory("chat-1"))).toEqual(["u1", "a1"]);
        expect(await manager.getMessageCount("chat-1")).toBe(2);

        // A managed session keeps its row as it was: no second row, the same name.
        const trip = await manager.create("Trip");
        await store
          .sessionWithoutManager(trip.id)
          .appendMessage(text("t1", "Go"));
        expect((await manager.get(trip.id))!.name).toBe("Trip");
        expect((await manager.list()).map((row) => row.id).sort()).toEqual(
          ["chat-1", trip.id].sort(),
        );

        // Reads register nothing; deleting removes the row and the messages.
        await store.sessionWithoutManager("never-written").getHistory();
        expect(await manager.get("never-written")).toBeNull();
        expect(await manager.delete("chat-1")).toBe(true);
        expect(await manager.get("chat-1")).toBeNull();
        expect(await manager.getHistory("chat-1")).toEqual([]);
      },
    );

    suite.it(
      "lists most recently updated first, deterministically, and pages with a cursor",
      async (store) => {
        const manager = store.manager();
        const created = [];
        for (let index = 0; index < 7; index++)
          created.push(await manager.create(`s${index}`));
        await pause();
        await manager.rename(created[2]!.id, "touched");
        const all = await manager.list();
        expect(all).toHaveLength(7);
        expect(all[0]!.id).toBe(created[2]!.id);
        for (let index = 1; index < all.length; index++) {
          const [a, b] = [all[index - 1]!, all[index]!];
          const ordered =
            a.updated_at > b.updated_at ||
            (a.updated_at === b.updated_at &&
              (a.created_at > b.created_at ||
                (a.created_at === b.created_at && a.id < b.id)));
          expect(ordered).toBe(true);
        }
        const paged: string[] = [];
        let cursor: string | null | undefined;
        do {
          const page = await manager.listPage({
            limit: 3,
            ...(cursor ? { cursor } : {}),
          });
          expect(page.sessions.length <= 3).toBe(true);
          paged.push(...page.sessions.map((info) => info.id));
          cursor = page.nextCursor;
        } while (cursor);
        expect(paged).toEqual(all.map((info) => info.id));
        expect(await manager.list()).toEqual(all);
      },
    );

    suite.it(
      "lists the sessions a session started (parentSessionId), the top level with orphans, and counts children per row",
      async (store) => {
        const manager = store.manager();
        const parent = await manager.create("parent", { ownerId: "acme" });
        const kids = [];
        for (let index = 0; index < 3; index++)
          kids.push(
            await manager.create(`kid ${index}`, {
              ownerId: "acme",
              parentSessionId: parent.id,
            }),
          );
        const lone = await manager.create("lone", { ownerId: "acme" });
        const orphan = await manager.create("orphan", {
          ownerId: "acme",
          parentSessionId: "gone",
        });
        // Another owner's child of acme's parent: not acme's child, and at its owner's top level.
        const foreign = await manager.create("foreign kid", {
          ownerId: "zeta",
          parentSessionId: parent.id,
        });
        const idsOf = (page: { sessions: Array<{ id: string }> }) =>
          page.sessions.map((info) => info.id).sort();
        expect(
          idsOf(await manager.listPage({ parentSessionId: null })),
        ).toEqual([parent.id, lone.id, orphan.id].sort());
        expect(
          idsOf(await manager.listPage({ parentSessionId: parent.id })),
        ).toEqual([...kids.map((kid) => kid.id), foreign.id].sort());
        expect(
          idsOf(
            await manager.listPage({
              parentSessionId: parent.id,
              ownerId: "acme",
            }),
          ),
        ).toEqual(kids.map((kid) => kid.id).sort());
        expect(
          idsOf(
            await manager.listPage({ parentSessionId: null, ownerId: "zeta" }),
          ),
        ).toEqual([foreign.id]);
        // A page of the top level holds no child, and pages through every top-level row.
        const paged: string[] = [];
        let cursor: string | null | undefined;
        do {
          const page = await manager.listPage({
            limit: 2,
            parentSessionId: null,
            ...(cursor ? { cursor } : {}),
          });
          paged.push(...page.sessions.map((info) => info.id));
          cursor = page.nextCursor;
        } while (cursor);
        expect(paged.sort()).toEqual([parent.id, lone.id, orphan.id].sort());
        const counts = async (ownerId?: string) =>
          Object.fromEntries(
            (
              await manager.listDetailedPage({
                parentSessionId: null,
                ...(ownerId !== undefined ? { ownerId } : {}),
              })
            ).sessions.map((row) => [row.info.id, row.childCount]),
          );
        expect(await counts()).toEqual({
          [parent.id]: 4,
          [lone.id]: 0,
          [orphan.id]: 0,
        });
        expect((await counts("acme"))[parent.id]).toBe(3);
        // Deleting the parent puts its children at the top level.
        await manager.delete(parent.id);
        expect(
          idsOf(await manager.listPage({ parentSessionId: null })),
        ).toEqual(
          [lone.id, orphan.id, foreign.id, ...kids.map((kid) => kid.id)].sort(),
        );
      },
    );

    suite.it(
      "getSession works without a registry row, returns one object per id, and its first message registers it",
      async (store) => {
        const manager = store.manager();
        const session = manager.getSession("unregistered");
        expect(manager.getSession("unregistered")).toBe(session);
        expect(await session.getHistory()).toEqual([]);
        expect(await manager.get("unregistered")).toBeNull();
        await session.appendMessage(text("m1", "hello"));
        expect(ids(await manager.getHistory("unregistered"))).toEqual(["m1"]);
        expect((await manager.get("unregistered"))?.name).toBe("unregistered");
      },
    );
    suite.it(
      "create takes an id; a taken id throws SESSION_EXISTS and writes nothing",
      async (store) => {
        const manager = store.manager();
        const info = await manager.create("Chosen", {
          id: "chosen-id",
          ownerId: "alice",
        });
        expect(info.id).toBe("chosen-id");
        expect((await manager.get("chosen-id"))!.name).toBe("Chosen");
        const error = await caught(() =>
          manager.create("Again", { id: "chosen-id", ownerId: "bob" }),
        );
        expect({
          code: summarizeError(error).code,
          message: messageOf(error),
        }).toEqual({
          code: "SESSION_EXISTS",
          message: 'Session "chosen-id" already exists',
        });
        expect((await manager.get("chosen-id"))!.name).toBe("Chosen");
        expect(await manager.getOwner("chosen-id")).toBe("alice");
        expect(await manager.list()).toHaveLength(1);
        // Two creates of one id at the same moment: one session, one error.
        const racers = await Promise.allSettled(
          [store.manager(), store.manager()].map((each, index) =>
            each.create(`racer ${index}`, { id: "raced-id" }),
          ),
        );
        expect(racers.map((racer) => racer.status).sort()).toEqual([
          "fulfilled",
          "rejected",
        ]);
        const rejected = racers.find((racer) => racer.status === "rejected");
        expect(summarizeError(rejected!.reason).code).toBe("SESSION_EXISTS");
        expect(
          summarizeError(await caught(() => manager.create("x", { id: "" })))
            .code,
        ).toBe("INVALID_ARGUMENT");
      },
    );
  });

  suite.describe("message helpers", () => {
    suite.it(
      "append, upsert and appendAll chain messages and bump updated_at",
      async (store) => {
        const manager = store.manager();
        const info = await manager.create("chat");
        expect(await manager.append(info.id, text("u1", "one"))).toBe("u1");
        await pause();
        expect(await manager.upsert(info.id, text("u1", "one, edited"))).toBe(
          "u1",
        );
        expect((await manager.getHistory(info.id))[0]!.parts[0]!.text).toBe(
          "one, edited",
        );
        expect(await manager.upsert(info.id, text("a1", "two"))).toBe("a1");
        // Omitted parent: the first message goes under the latest leaf, not into a new root.
        expect(
          await manager.appendAll(info.id, [
            text("u2", "three"),
            text("a2", "four"),
          ]),
        ).toBe("a2");
        expect(ids(await manager.getHistory(info.id))).toEqual([
          "u1",
          "a1",
          "u2",
          "a2",
        ]);
        expect(await manager.appendAll(info.id, [], "u1")).toBe("u1");
        expect(await manager.appendAll(info.id, [])).toBeNull();
        expect(
          await manager.appendAll(info.id, [text("r1", "root")], null),
        ).toBe("r1");
        expect(ids(await manager.getHistory(info.id))).toEqual(["r1"]);
        expect(await manager.getMessageCount(info.id)).toBe(1);
        expect((await manager.get(info.id))!.updated_at > info.updated_at).toBe(
          true,
        );
        await manager.deleteMessages(info.id, ["r1"]);
        expect(ids(await manager.getHistory(info.id))).toEqual([
          "u1",
          "a1",
          "u2",
          "a2",
        ]);
        expect(ids(await manager.getBranches(info.id, "u1"))).toEqual(["a1"]);
        await manager.clearMessages(info.id);
        expect(await manager.getHistory(info.id)).toEqual([]);
      },
    );

    suite.it(
      "appendToExisting writes only to a session that exists, and says what it did",
      async (store) => {
        const manager = store.manager();
        const notFound = async (id: string) => {
          const error = await manager
            .appendToExisting(id, text("x1", "lost"))
            .then(
              () => null,
              (caught: unknown) => caught,
            );
          expect((error as { code?: string } | null)?.code).toBe(
            "SESSION_NOT_FOUND",
          );
        };
        await notFound("never-created");
        expect(await manager.get("never-created")).toBeNull();
        expect(await manager.getHistory("never-created")).toEqual([]);

        const info = await manager.create("chat");
        await pause();
        const first = await manager.appendToExisting(
          info.id,
          text("u1", "one"),
        );
        expect([first.inserted, first.matchesStored]).toEqual([true, true]);
        expect(first.message.id).toBe("u1");
        const second = await manager.appendToExisting(
          info.id,
          text("a1", "two"),
        );
        expect(second.inserted).toBe(true);
        expect(ids(await manager.getHistory(info.id))).toEqual(["u1", "a1"]);
        expect((await manager.get(info.id))!.updated_at > info.updated_at).toBe(
          true,
        );
        // The same write again, and another body under a taken id.
        const retry = await manager.appendToExisting(
          info.id,
          text("a1", "two"),
        );
        expect([retry.inserted, retry.matchesStored]).toEqual([false, true]);
        const clash = await manager.appendToExisting(
          info.id,
          text("a1", "different"),
        );
        expect([clash.inserted, clash.matchesStored]).toEqual([false, false]);
        expect(clash.message.parts[0]!.text).toBe("two");
        // An explicit parent, and a new root.
        await manager.appendToExisting(info.id, text("b1", "branch"), "u1");
        expect(ids(await manager.getBranches(info.id, "u1"))).toEqual([
          "a1",
          "b1",
        ]);
        await manager.appendToExisting(info.id, text("r1", "root"), null);
        expect(ids(await manager.getHistory(info.id))).toEqual(["r1"]);

        await manager.delete(info.id);
        await notFound(info.id);
        expect(await manager.get(info.id)).toBeNull();
        expect(await manager.getHistory(info.id)).toEqual([]);
      },
    );

    suite.it(
      "appendToExisting with parentMustExist refuses a parent the session lacks and writes nothing",
      async (store) => {
        const manager = store.manager();
        const info = await manager.create("chat");
        const other = await manager.create("other");
        await manager.appendToExisting(info.id, text("u1", "one"));
        await manager.appendToExisting(other.id, text("o1", "elsewhere"));
        const refused = async (parentId: string, id: string) => {
          const error = await manager
            .appendToExisting(info.id, text(id, "lost"), parentId, {
              parentMustExist: true,
            })
            .then(
              () => null,
              (caught: unknown) => caught,
            );
          expect((error as { code?: string } | null)?.code).toBe(
            "MESSAGE_NOT_FOUND",
          );
          expect(await manager.getSession(info.id).getMessage(id)).toBeNull();
        };
        // Unknown anywhere, and a message of another session: never attached, never a root.
        await refused("nowhere", "x1");
        await refused("o1", "x2");
        expect(ids(await manager.getHistory(info.id))).toEqual(["u1"]);
        // A parent that is there: stored under it; its retry is the same write.
        const stored = await manager.appendToExisting(
          info.id,
          text("a1", "two"),
          "u1",
          { parentMustExist: true },
        );
        expect([stored.inserted, stored.matchesStored]).toEqual([true, true]);
        const retry = await manager.appendToExisting(
          info.id,
          text("a1", "two"),
          "u1",
          { parentMustExist: true },
        );
        expect([retry.inserted, retry.matchesStored]).toEqual([false, true]);
        // No parent or a new root: nothing to check.
        await manager.appendToExisting(
          info.id,
          text("a2", "three"),
          undefined,
          {
            parentMustExist: true,
          },
        );
        expect(ids(await manager.getHistory(info.id))).toEqual([
          "u1",
          "a1",
          "a2",
        ]);
        // A session that does not exist is that, whatever the parent.
        const error = await manager
          .appendToExisting("never-created", text("y1", "lost"), "u1", {
            parentMustExist: true,
          })
          .then(
            () => null,
            (caught: unknown) => caught,
          );
        expect((error as { code?: string } | null)?.code).toBe(
          "SESSION_NOT_FOUND",
        );
        expect(await manager.get("never-created")).toBeNull();
      },
    );

    suite.it(
      "writes through getSession() bump updated_at too",
      async (store) => {
        const manager = store.manager();
        const info = await manager.create("chat");
        await pause();
        await manager.getSession(info.id).appendMessage(text("m1", "hi"));
        expect((await manager.get(info.id))!.updated_at > info.updated_at).toBe(
          true,
        );
      },
    );
  });

  suite.describe("fork, compaction and usage", () => {
    suite.it(
      "fork copies the raw path and its overlays; history matches the source at that message",
      async (store) => {
        const manager = store.manager();
        const source = await manager.create("source", { ownerId: "alice" });
        for (const id of ["m1", "m2", "m3", "m4"])
          await manager.append(source.id, text(id, `text ${id}`));
        await manager.append(source.id, text("other", "sibling"), "m2");
        await manager.addCompaction(source.id, "summary of m1..m2", "m1", "m2");
        const fork = await manager.fork(source.id, "m3", "forked");
        expect(fork.name).toBe("forked");
        expect(fork.parent_session_id).toBe(source.id);
        expect(await manager.getOwner(fork.id)).toBe("alice");
        const expected = await manager.getHistory(source.id, "m3");
        const actual = await manager.getHistory(fork.id);
        expect(actual.map((message) => message.parts[0]!.text)).toEqual(
          expected.map((message) => message.parts[0]!.text),
        );
        expect(
          actual.some((message) => ["m1", "m2", "m3"].includes(message.id)),
        ).toBe(false);
        expect(await manager.getMessageCount(fork.id)).toBe(3);
        const kept = await manager.fork(source.id, "m2", "kept ids", {
          preserveIds: true,
        });
        expect(await manager.getMessageCount(kept.id)).toBe(2);
        expect((await manager.getCompactions(kept.id))[0]!.fromMessageId).toBe(
          "m1",
        );
        const before = (await manager.list()).length;
        const error = await caught(() =>
          manager.fork(source.id, "missing", "x"),
        );
        expect({
          code: summarizeError(error).code,
          message: messageOf(error),
        }).toEqual({
          code: "MESSAGE_NOT_FOUND",
          message: `Message "missing" not found in session "${source.id}"`,
        });
        expect(await manager.list()).toHaveLength(before);
      },
    );

    suite.it(
      "fork with a newId is retryable: the same newId finds its fork, completes an empty one, and refuses another session",
      async (store) => {
        const manager = store.manager();
        const source = await manager.create("source");
        for (const id of ["m1", "m2", "m3"])
          await manager.append(source.id, text(id, `text ${id}`));
        const fork = await manager.fork(source.id, "m2", "forked", {
          newId: "fork-1",
        });
        expect([fork.id, fork.parent_session_id]).toEqual([
          "fork-1",
          source.id,
        ]);
        const again = await manager.fork(source.id, "m2", "forked", {
          newId: "fork-1",
        });
        expect(again.id).toBe("fork-1");
        expect(await manager.getMessageCount("fork-1")).toBe(2);
        // An earlier call that stopped after registering the fork, before copying.
        await manager.create("forked", {
          id: "fork-2",
          parentSessionId: source.id,
        });
        const completed = await manager.fork(source.id, "m3", "forked", {
          newId: "fork-2",
        });
        expect(completed.id).toBe("fork-2");
        expect(
          (await manager.getHistory("fork-2")).map((m) => m.parts[0]!.text),
        ).toEqual(["text m1", "text m2", "text m3"]);
        // The copies are named from newId: a retry that races its first attempt writes the same
        // ids, which the store takes once, instead of a second copy.
        const named = (await manager.getHistory("fork-1")).map((m) => m.id);
        await manager.delete("fork-1");
        await manager.fork(source.id, "m2", "forked", { newId: "fork-1" });
        expect((await manager.getHistory("fork-1")).map((m) => m.id)).toEqual(
          named,
        );
        expect(named.includes("m1")).toBe(false);
        // Two attempts both past the registration, both copying into the empty fork: one copy.
        await manager.create("raced", {
          id: "fork-3",
          parentSessionId: source.id,
        });
        const raced = await Promise.allSettled(
          [store.manager(), store.manager()].map((each) =>
            each.fork(source.id, "m3", "raced", { newId: "fork-3" }),
          ),
        );
        expect(raced.map((each) => each.status)).toEqual([
          "fulfilled",
          "fulfilled",
        ]);
        expect(await manager.getMessageCount("fork-3")).toBe(3);
        // Two attempts from the start, neither finding the row: the one that registers it second
        // meets SESSION_EXISTS, finds the fork and returns it (a retry after an ambiguous failure).
        const both = await Promise.allSettled(
          [store.manager(), store.manager()].map((each) =>
            each.fork(source.id, "m3", "both", { newId: "fork-4" }),
          ),
        );
        expect(both.map((each) => each.status)).toEqual([
          "fulfilled",
          "fulfilled",
        ]);
        expect(await manager.getMessageCount("fork-4")).toBe(3);
        await manager.create("unrelated", { id: "taken" });
        const error = await caught(() =>
          manager.fork(source.id, "m2", "x", { newId: "taken" }),
        );
        expect(summarizeError(error).code).toBe("SESSION_EXISTS");
        expect(await manager.getMessageCount("taken")).toBe(0);
        expect(await manager.list()).toHaveLength(6);
      },
    );

    suite.it(
      "compactAndSplit ends the old session and starts a child with the summary",
      async (store) => {
        const manager = store.manager();
        const old = await manager.create("long chat", {
          model: "m",
          source: "cli",
        });
        await manager.append(old.id, text("m1", "hello"));
        const next = await manager.compactAndSplit(old.id, "We discussed tea.");
        expect((await manager.get(old.id))!.end_reason).toBe("compaction");
        expect(next.name).toBe("long chat");
        expect([next.parent_session_id, next.model, next.source]).toEqual([
          old.id,
          "m",
          "cli",
        ]);
        const [first] = await manager.getHistory(next.id);
        expect(first!.role).toBe("assistant");
        expect(first!.parts).toEqual([
          {
            type: "text",
            text: "[Context from previous session]\n\nWe discussed tea.",
          },
        ]);
        expect(ids(await manager.getHistory(old.id))).toEqual(["m1"]);
        expect(
          (await manager.compactAndSplit(old.id, "x", "renamed")).name,
        ).toBe("renamed");
      },
    );

    suite.it(
      "addUsage accumulates and rejects non-finite numbers with a TypeError",
      async (store) => {
        const manager = store.manager();
        const info = await manager.create("chat");
        await manager.addUsage(info.id, 100, 20, 0.5);
        await manager.addUsage(info.id, 10, 5, 0.25);
        const row = (await manager.get(info.id))!;
        expect([
          row.input_tokens,
          row.output_tokens,
          row.estimated_cost,
        ]).toEqual([110, 25, 0.75]);
        for (const bad of [Number.NaN, Number.POSITIVE_INFINITY]) {
          const error = await caught(() =>
            manager.addUsage(info.id, bad, 1, 1),
          );
          expect(summarizeError(error)).toEqual({
            kind: "TypeError",
            code: "INVALID_ARGUMENT",
            marked: true,
          });
        }
      },
    );
  });
}
