import { caught, summarizeError } from "../helpers.js";
import { readonlyProvider, writableProvider } from "../context-fixtures.js";
import type { ManagerSuite } from "../manager-suite.js";
import { ISO, type ToolSet, text, ids } from "./manager-support.js";

export function managerFeaturesSpec(suite: ManagerSuite): void {
  const { expect } = suite;

  suite.describe("idempotency records", () => {
    suite.it(
      "the import index claims a key once, even when many claim it at once from two managers",
      async (store) => {
        const first = store.manager().importIndex();
        const second = store.manager().importIndex();
        const claims = await Promise.all(
          Array.from({ length: 8 }, (_, index) =>
            (index % 2 ? second : first).claimIdempotent(
              "key-1",
              `claim ${index}`,
            ),
          ),
        );
        expect(claims.filter(Boolean)).toHaveLength(1);
        const winner = claims.indexOf(true);
        expect(await second.idempotent("key-1")).toBe(`claim ${winner}`);
        // A claimed key is replaced by its answer; a claim on it still fails.
        await first.recordIdempotent("key-1", "answer");
        expect(await first.claimIdempotent("key-1", "late")).toBe(false);
        expect(await second.idempotent("key-1")).toBe("answer");
        expect(await second.claimIdempotent("key-2", "other")).toBe(true);
      },
    );
  });

  suite.describe("search and tools", () => {
    suite.it(
      "searches every registered session, one first written without the manager included, with filters, and names the session of each hit",
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
        // Registered by its first message (docs/behavior/manager.md#sessions-written-without-the-manager).
        await manager
          .getSession("unmanaged")
          .appendMessage(text("u1", "Friday deployment"));
        const hits = await manager.search("friday deployment");
        expect(hits.map((hit) => hit.sessionId).sort()).toEqual(
          [coffee.id, tea.id, "unmanaged"].sort(),
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
        const tools = (await manager.tools()) as ToolSet;
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
        // One block per hit: rank, session name, time, role, id; the snippet; one turn either side.
        const blocks = found.split("\n\n");
        expect(blocks).toHaveLength(2);
        for (const block of blocks)
          expect(
            /^#[12] · session "chat" · \d{4}-\d\d-\d\d \d\d:\d\d UTC · (user|assistant) · id (u1|a1)\n/.test(
              block,
            ),
          ).toBe(true);
        expect(found.includes("  > I like «green» «tea»")).toBe(true);
        expect(found.includes("  > «Green» «tea» noted")).toBe(true);
        expect(found.includes("    assistant: Green tea noted")).toBe(true);
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
        const sessionTools = (await session.tools()) as ToolSet;
        expect(Object.keys(sessionTools)).toEqual(["search_context"]);
        const viaBlock = await sessionTools.search_context!.execute({
          label: "history",
          query: "noted",
        });
        expect(viaBlock.split("\n").slice(1)).toEqual([
          "    user: I like green tea",
          "  > Green tea «noted»",
        ]);
        // since/until reach the history through search_context as through session_search.
        const later = new Date(Date.now() + 86_400_000).toISOString();
        expect(
          await sessionTools.search_context!.execute({
            label: "history",
            query: "noted",
            since: later,
          }),
        ).toBe("No results found.");
        expect(
          (
            await sessionTools.search_context!.execute({
              label: "history",
              query: "noted",
              until: later,
            })
          ).includes("«noted»"),
        ).toBe(true);
        await manager.create("second");
        expect(
          (await session.refreshSystemPrompt()).includes(
            "2 sessions available for search.",
          ),
        ).toBe(true);
      },
    );
  });

  suite.describe("search-index settings", () => {
    suite.it(
      "tool outputs are searchable only while the store indexes them: off by default, on for messages written before and after, off again; erase takes them out; hits keep content without outputs",
      async (store) => {
        const manager = store.manager();
        let settings;
        try {
          settings = await manager.searchIndexSettings();
        } catch (error) {
          // A custom store without `searchIndex` says so, and has nothing more to test here.
          expect((error as { code?: string }).code).toBe("NOT_SUPPORTED");
          return;
        }
        expect(settings).toEqual({ toolOutputs: false });
        const info = await manager.create("agent");
        const call = (
          id: string,
          command: string,
          result: { output: unknown } | { errorText: string },
        ) => ({
          id,
          role: "assistant",
          parts: [
            {
              type: "tool-bash",
              toolCallId: `call-${id}`,
              state: "output" in result ? "output-available" : "output-error",
              input: { command },
              ...result,
            },
          ],
        });
        await manager.append(info.id, text("u1", "list the reports"));
        await manager.append(
          info.id,
          call("a1", "ls reports", {
            output: { stdout: "zebrafish census 2026" },
          }),
        );
        const found = async (query: string) =>
          (await manager.search(query)).map((hit) => hit.id);
        expect(await found("zebrafish")).toEqual([]);
        expect(await found("reports")).toEqual(["a1", "u1"]);

        let on;
        try {
          on = await manager.configureSearchIndex({ toolOutputs: true });
        } catch (error) {
          // A store that cannot write it atomically (PostgreSQL over an `execute` connection
          // without transactions) refuses, as erase does, and changes nothing.
          expect((error as { code?: string }).code).toBe("NOT_SUPPORTED");
          expect(await manager.searchIndexSettings()).toEqual({
            toolOutputs: false,
          });
          expect(await found("zebrafish")).toEqual([]);
          return;
        }
        expect(on).toEqual({
          settings: { toolOutputs: true },
          changed: true,
          reindexed: 1,
        });
        expect(await manager.searchIndexSettings()).toEqual({
          toolOutputs: true,
        });
        const [hit] = await manager.search("zebrafish");
        expect(hit?.id).toBe("a1");
        // The hit reads as the call; its output is in the stored message.
        expect(hit?.content).toBe("bash ls reports");
        // Written after the change, and an error text, through the session too.
        await manager.append(
          info.id,
          call("a2", "cat missing.md", { errorText: "ENOENT quokka" }),
        );
        expect(await found("quokka")).toEqual(["a2"]);
        const session = manager.getSession(info.id);
        expect((await session.search("quokka")).map((h) => h.id)).toEqual([
          "a2",
        ]);
        expect(
          await manager.configureSearchIndex({ toolOutputs: true }),
        ).toEqual({
          settings: { toolOutputs: true },
          changed: false,
          reindexed: 0,
        });

        await manager.erase({ sessionId: info.id, messageIds: ["a2"] });
        expect(await found("quokka")).toEqual([]);
        expect(await found("zebrafish")).toEqual(["a1"]);

        const off = await manager.configureSearchIndex({ toolOutputs: false });
        expect(off).toEqual({
          settings: { toolOutputs: false },
          changed: true,
          reindexed: 1,
        });
        expect(await found("zebrafish")).toEqual([]);
        expect(await found("reports")).toEqual(["a1", "u1"]);

        for (const bad of [
          undefined,
          { toolOutputs: "yes" },
          { toolOutputs: true, outputs: true },
        ]) {
          const error = await caught(() =>
            // @ts-expect-error -- invalid settings on purpose
            manager.configureSearchIndex(bad),
          );
          expect(summarizeError(error)).toEqual({
            kind: "TypeError",
            code: "INVALID_ARGUMENT",
            marked: true,
          });
        }
        expect(await manager.searchIndexSettings()).toEqual({
          toolOutputs: false,
        });
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
}
