import type { SessionManager } from "../../session/manager/session-manager.js";
import type { SessionMessage } from "../../session/contracts/types.js";
import { readonlyProvider, writableProvider } from "../context-fixtures.js";
import { caught, messageOf, summarizeError } from "../helpers.js";
import type { ManagerStore, ManagerSuite } from "../manager-suite.js";

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

type ToolSet = Record<string, { execute(input: unknown): Promise<string> }>;

/** The SessionManager on one backend (SPEC §11, §15.3, §15.4). */
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
      "answers unknown ids as SPEC §11.3 says, with exact errors",
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
      "getSession works without a registry row and returns one object per id",
      async (store) => {
        const manager = store.manager();
        const session = manager.getSession("unregistered");
        expect(manager.getSession("unregistered")).toBe(session);
        await session.appendMessage(text("m1", "hello"));
        expect(ids(await manager.getHistory("unregistered"))).toEqual(["m1"]);
        expect(await manager.get("unregistered")).toBeNull();
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

  suite.describe("search and tools", () => {
    suite.it(
      "searches managed sessions only, with filters, and names the session of each hit",
      async (store) => {
        const manager = store.manager();
        const tea = await manager.create("tea", { ownerId: "alice" });
        const coffee = await manager.create("coffee", { ownerId: "bob" });
        await manager.append(
          tea.id,
          text("t1", "Green tea deployment on Friday"),
        );
        await manager.append(
          coffee.id,
          text("c1", "Coffee deployment on Friday"),
        );
        await manager
          .getSession("unmanaged")
          .appendMessage(text("u1", "Friday deployment"));
        const hits = await manager.search("friday deployment");
        expect(hits.map((hit) => hit.sessionId).sort()).toEqual(
          [coffee.id, tea.id].sort(),
        );
        expect(hits.every((hit) => ISO.test(hit.createdAt ?? ""))).toBe(true);
        expect(
          (await manager.search("friday", { ownerId: "alice" })).map(
            (hit) => hit.id,
          ),
        ).toEqual(["t1"]);
        expect(
          (await manager.search("friday", { sessionIds: [coffee.id] })).map(
            (hit) => hit.id,
          ),
        ).toEqual(["c1"]);
        expect(await manager.search("   ")).toEqual([]);
        expect(await manager.search('" OR *')).toEqual([]);
        expect(await manager.search("friday", { limit: 1 })).toHaveLength(1);
      },
    );

    suite.it(
      "session_search and the searchable-history block format hits for the model",
      async (store) => {
        const manager = store.manager().withSearchableHistory("history");
        const info = await manager.create("chat");
        const tools = (await manager.tools()) as unknown as ToolSet;
        expect(Object.keys(tools)).toEqual(["session_search"]);
        expect(await tools.session_search!.execute({ query: "tea" })).toBe(
          "No results found.",
        );
        await manager.append(info.id, text("u1", "I like green tea"));
        await manager.append(info.id, {
          id: "a1",
          role: "assistant",
          parts: [{ type: "text", text: "Green tea noted" }],
        });
        const found = await tools.session_search!.execute({
          query: "green tea",
        });
        expect(found.split("\n---\n").sort()).toEqual([
          "[assistant] Green tea noted",
          "[user] I like green tea",
        ]);
        const session = manager.getSession(info.id);
        expect(session.getContextBlocks()).toEqual([]);
        const [block] = await session.loadContext();
        expect([
          block!.label,
          block!.description,
          block!.content,
          block!.isSearchable,
          block!.writable,
        ]).toEqual([
          "history",
          "Cross-session conversation history",
          "1 session available for search.",
          true,
          false,
        ]);
        const sessionTools = (await session.tools()) as unknown as ToolSet;
        expect(Object.keys(sessionTools)).toEqual(["search_context"]);
        expect(
          await sessionTools.search_context!.execute({
            label: "history",
            query: "noted",
          }),
        ).toBe("[assistant] Green tea noted");
        await manager.create("second");
        expect(
          (await session.refreshSystemPrompt()).includes(
            "2 sessions available for search.",
          ),
        ).toBe(true);
      },
    );
  });

  suite.describe("builder propagation", () => {
    suite.it(
      "gives each session its own auto-wired blocks, shared providers and factories",
      async (store) => {
        const shared = writableProvider("shared facts");
        const made: string[] = [];
        const manager = store
          .manager()
          .withContext("soul", { provider: readonlyProvider("You are Arbor.") })
          .withContext("memory", { maxTokens: 100 })
          .withContext("team", { provider: shared })
          .withContext("scratch", {
            provider: (sessionId: string) => {
              made.push(sessionId);
              return writableProvider(`scratch of ${sessionId}`);
            },
          })
          .withCachedPrompt();
        const a = await manager.create("a");
        const b = await manager.create("b");
        await manager
          .getSession(a.id)
          .replaceContextBlock("memory", "a's fact");
        await manager.getSession(a.id).replaceContextBlock("team", "team fact");
        const bBlocks = await manager.getSession(b.id).loadContext();
        expect(bBlocks.map((block) => [block.label, block.content])).toEqual([
          ["soul", "You are Arbor."],
          ["memory", ""],
          ["team", "team fact"],
          ["scratch", `scratch of ${b.id}`],
        ]);
        expect(made.sort()).toEqual([a.id, b.id].sort());
        const prompt = await manager.getSession(a.id).freezeSystemPrompt();
        expect(prompt).toContain("a's fact");
        const restarted = store
          .manager()
          .withContext("soul", { provider: readonlyProvider("changed") })
          .withContext("memory", { maxTokens: 100 })
          .withContext("team", { provider: shared })
          .withCachedPrompt();
        expect(await restarted.getSession(a.id).freezeSystemPrompt()).toBe(
          prompt,
        );
      },
    );

    suite.it(
      "propagates compaction settings to managed sessions",
      async (store) => {
        const seen: number[] = [];
        const manager = store
          .manager()
          .onCompaction(async (messages) => {
            seen.push(messages.length);
            return null;
          })
          .compactAfter(0);
        const info = await manager.create("chat");
        await manager.append(info.id, text("m1", "hello"));
        expect(seen).toEqual([1]);
        const compacted = await manager.getSession(info.id).compact();
        expect(compacted).toBeNull();
      },
    );
  });

  suite.describe("delete", () => {
    suite.it(
      "removes every row of the session and re-creates none, leaving other sessions intact",
      async (store) => {
        const manager = store
          .manager()
          .withContext("memory")
          .withCachedPrompt()
          .onCompaction(async () => null);
        const doomed = await manager.create("doomed", {
          ownerId: "alice",
          metadata: { ticket: "T-1" },
        });
        const kept = await manager.create("kept");
        for (const info of [doomed, kept]) {
          const session = manager.getSession(info.id);
          await session.appendMessage(
            text(`${info.id}-1`, "searchable words here"),
          );
          await session.appendMessage(text(`${info.id}-2`, "more words"));
          await session.addCompaction(
            "summary",
            `${info.id}-1`,
            `${info.id}-2`,
          );
          await session.replaceContextBlock("memory", `fact of ${info.id}`);
          await session.freezeSystemPrompt();
        }
        expect(JSON.stringify(await store.dump())).toContain(doomed.id);
        expect(await manager.delete(doomed.id)).toBe(true);
        const leftovers = (await store.dump()).filter((row) =>
          JSON.stringify(row).includes(doomed.id),
        );
        expect(leftovers).toEqual([]);
        expect(ids(await manager.getHistory(kept.id))).toEqual([
          `compaction_${(await manager.getCompactions(kept.id))[0]!.id}`,
        ]);
        expect(
          (await manager.search("searchable")).map((hit) => hit.sessionId),
        ).toEqual([kept.id]);
        expect(
          await manager.getSession(kept.id).getContextBlockHistory("memory"),
        ).toHaveLength(1);
      },
    );
  });

  suite.describe("tenant binding", () => {
    suite.it(
      "binds sessions to owners; resume hides foreign and missing sessions alike",
      async (store) => {
        const manager = store.manager();
        const mine = await manager.create("mine", { ownerId: "alice" });
        const theirs = await manager.create("theirs", { ownerId: "bob" });
        const open = await manager.create("open");
        expect(await manager.resume(mine.id, "alice")).toBe(
          manager.getSession(mine.id),
        );
        const forbidden = await caught(() =>
          manager.resume(theirs.id, "alice"),
        );
        const missing = await caught(() => manager.resume("nope", "alice"));
        const unbound = await caught(() => manager.resume(open.id, "alice"));
        expect(summarizeError(forbidden).code).toBe("SESSION_FORBIDDEN");
        expect(summarizeError(missing).code).toBe("SESSION_NOT_FOUND");
        expect(summarizeError(unbound).code).toBe("SESSION_FORBIDDEN");
        expect(messageOf(forbidden)).toBe(
          messageOf(missing)?.toString().replace("nope", theirs.id),
        );
        expect((forbidden as Error).name).toBe("SessionAccessError");
        expect(
          (await manager.list({ ownerId: "alice" })).map((info) => info.id),
        ).toEqual([mine.id]);
        await manager.setOwner(open.id, "alice");
        await manager.setOwner(open.id, "alice");
        const rebind = await caught(() => manager.setOwner(open.id, "bob"));
        expect(summarizeError(rebind).code).toBe("SESSION_FORBIDDEN");
        await manager.setOwner(open.id, "bob", { force: true });
        expect(await manager.getOwner(open.id)).toBe("bob");
        expect(await manager.getOwner("nope")).toBeNull();
        await manager.setMetadata(mine.id, "conversation", "svc-123");
        expect(await manager.getMetadata(mine.id, "conversation")).toBe(
          "svc-123",
        );
        expect(await manager.getMetadata(mine.id, "missing")).toBeNull();
      },
    );
  });

  suite.describe("snapshots", () => {
    suite.it("export then import gives an identical session", async (store) => {
      const manager = store.manager().withContext("memory").withCachedPrompt();
      const info = await manager.create("original", {
        ownerId: "alice",
        metadata: { k: "v" },
      });
      await populate(manager, info.id);
      const snapshot = await manager.exportSession(info.id);
      const before = await describeSession(manager, info.id);
      await manager.delete(info.id);
      const restored = await manager.importSession(
        JSON.parse(JSON.stringify(snapshot)),
      );
      expect(restored.id).toBe(info.id);
      expect(restored.name).toBe("original");
      expect(await describeSession(manager, info.id)).toEqual(before);
      expect(await manager.getOwner(info.id)).toBe("alice");
      expect(await manager.getMetadata(info.id, "k")).toBe("v");
      await manager.append(info.id, text("after", "continues"));
      expect((await manager.getHistory(info.id)).at(-1)!.id).toBe("after");
    });

    suite.it(
      "import refuses existing ids, foreign owners and unknown formats, writing nothing",
      async (store) => {
        const manager = store.manager();
        const info = await manager.create("original", { ownerId: "alice" });
        await populate(manager, info.id);
        const snapshot = await manager.exportSession(info.id);
        const exists = await caught(() => manager.importSession(snapshot));
        expect({
          code: summarizeError(exists).code,
          message: messageOf(exists),
        }).toEqual({
          code: "SESSION_EXISTS",
          message: `Session "${info.id}" already exists`,
        });
        const foreign = await caught(() =>
          manager.importSession(snapshot, { newId: true, ownerId: "bob" }),
        );
        expect(summarizeError(foreign).code).toBe("SESSION_FORBIDDEN");
        expect(await manager.list()).toHaveLength(1);
        const copy = await manager.importSession(snapshot, {
          newId: true,
          ownerId: "bob",
          rebind: true,
          name: "copy",
        });
        expect(copy.id === info.id).toBe(false);
        expect(await manager.getOwner(copy.id)).toBe("bob");
        // Same messages; overlay ids may differ where a store keeps them unique across sessions.
        const texts = async (id: string) =>
          (await manager.getHistory(id)).map(
            (message) => message.parts[0]!.text,
          );
        expect(await texts(copy.id)).toEqual(await texts(info.id));
        for (const bad of [
          { ...snapshot, format: "other" },
          { ...snapshot, version: 2 },
        ]) {
          const error = await caught(() =>
            manager.importSession(bad as never, { newId: true }),
          );
          expect(summarizeError(error).code).toBe("INVALID_SNAPSHOT");
        }
        expect(await manager.list()).toHaveLength(2);
      },
    );

    suite.it(
      "signs snapshots with an HMAC key and rejects tampered or unsigned ones",
      async (store) => {
        const manager = store.manager({ snapshotKey: "secret" });
        const info = await manager.create("signed");
        await manager.append(info.id, text("m1", "hello"));
        const snapshot = await manager.exportSession(info.id);
        expect(/^[0-9a-f]{64}$/.test(snapshot.signature ?? "")).toBe(true);
        const tampered = JSON.parse(JSON.stringify(snapshot));
        tampered.messages[0].message.parts[0].text = "forged";
        const { signature: _unused, ...unsigned } = snapshot;
        for (const bad of [tampered, unsigned]) {
          const error = await caught(() =>
            manager.importSession(bad, { newId: true }),
          );
          expect(summarizeError(error).code).toBe("INVALID_SNAPSHOT");
        }
        const copy = await manager.importSession(snapshot, { newId: true });
        expect(ids(await manager.getHistory(copy.id))).toEqual(["m1"]);
      },
    );
  });
}

// --- Internal helpers ---

function text(id: string, value: string): SessionMessage {
  return { id, role: "user", parts: [{ type: "text", text: value }] };
}

function ids(messages: SessionMessage[]): string[] {
  return messages.map((message) => message.id);
}

/** Lets the clock move so `updated_at` (ms resolution) can change. */
function pause(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 3));
}

async function populate(manager: SessionManager, id: string): Promise<void> {
  for (const messageId of ["u1", "a1", "u2", "a2"])
    await manager.append(id, text(messageId, `text ${messageId}`));
  await manager.append(id, text("a2-regenerated", "another answer"), "u2");
  await manager.append(id, text("old-leaf", "on the older branch"), "a2");
  await manager.addCompaction(id, "summary of the start", "u1", "a1");
  const session = manager.getSession(id);
  if (
    session.getContextBlock("memory") !== null ||
    (await session.loadContext()).some((block) => block.label === "memory")
  ) {
    await session.replaceContextBlock("memory", "likes tea");
    await session.freezeSystemPrompt();
  }
}

async function describeSession(manager: SessionManager, id: string) {
  const session = manager.getSession(id);
  const snapshot = await session.exportSnapshot();
  return {
    messages: snapshot.messages,
    compactions: snapshot.compactions,
    latest: (await session.getLatestLeaf())?.id,
    history: await session.getHistory(),
    branches: ids(await session.getBranches("u2")),
    blocks: snapshot.contextBlocks,
    prompt: snapshot.systemPrompt,
  };
}

export type { ManagerStore };
