import { caught } from "../helpers.js";
import { assembleContext } from "../../utils/assemble-context.js";
import type { ManagerSuite } from "../manager-suite.js";
import { type ToolSet, text } from "./manager-support.js";

/** Blocks created at run time (`manager.createContextBlock()`), stored with their session. */
export function managerCreatedBlocksSpec(suite: ManagerSuite): void {
  const { expect } = suite;

  suite.describe("created blocks", () => {
    suite.it(
      "a created block is stored with its session: a restarted manager has it in the prompt, the tools and its history",
      async (store) => {
        const first = store.manager().withContext("memory");
        const info = await first.create("chat");
        await first.append(info.id, text("u1", "hello"));
        const created = await first.createContextBlock(info.id, "plans", {
          description: "The user's plans",
          maxTokens: 200,
          content: "Trip to Lisbon in May.",
        });
        expect(created.label).toBe("plans");
        expect(created.content).toBe("Trip to Lisbon in May.");
        expect(created.maxTokens).toBe(200);
        expect(created.writable).toBe(true);

        // A restart: a new manager over the same store, declaring only what it declared before.
        const second = store.manager().withContext("memory");
        const session = second.getSession(info.id);
        const { system } = await assembleContext(session, { freeze: false });
        // The label as the prompt renders it (upper case), the description and the content.
        expect(system).toContain("PLANS");
        expect(system).toContain("The user's plans");
        expect(system).toContain("Trip to Lisbon in May.");
        expect(
          (await session.loadContext()).map((block) => block.label),
        ).toEqual(["memory", "plans"]);
        const tools = (await session.tools()) as ToolSet;
        expect(
          await tools.set_context!.execute({
            label: "plans",
            content: "Trip to Porto in June.",
          }),
        ).toContain("Written to plans");
        const versions = await session.getContextBlockHistory("plans");
        expect(versions.map((version) => version.content)).toEqual([
          "Trip to Lisbon in May.",
          "Trip to Porto in June.",
        ]);
        // Another session of the store does not get it.
        const other = await second.create("other");
        expect(
          (await second.getSession(other.id).loadContext()).map(
            (block) => block.label,
          ),
        ).toEqual(["memory"]);
      },
    );

    suite.it(
      "creating a block refuses bad input, a label the session has and an unknown session, writing nothing",
      async (store) => {
        const manager = store.manager().withContext("memory");
        const info = await manager.create("chat");
        await manager.createContextBlock(info.id, "plans");
        const before = JSON.stringify(await store.dump());
        const code = async (run: () => Promise<unknown>) =>
          ((await caught(run)) as { code?: string } | undefined)?.code;
        expect(
          await code(() => manager.createContextBlock(info.id, "memory")),
        ).toBe("BLOCK_EXISTS");
        expect(
          await code(() => manager.createContextBlock(info.id, "plans")),
        ).toBe("BLOCK_EXISTS");
        expect(
          await code(() => manager.createContextBlock(info.id, "two words")),
        ).toBe("INVALID_ARGUMENT");
        expect(
          await code(() => manager.createContextBlock(info.id, "_system_x")),
        ).toBe("INVALID_ARGUMENT");
        expect(
          await code(() =>
            manager.createContextBlock(info.id, "notes", { maxTokens: 0 }),
          ),
        ).toBe("INVALID_ARGUMENT");
        expect(
          await code(() =>
            manager.createContextBlock(info.id, "notes", {
              maxTokens: 2,
              content: "far more words than two tokens can hold",
            }),
          ),
        ).toBe("BLOCK_TOO_LARGE");
        expect(
          await code(() => manager.createContextBlock("missing", "notes")),
        ).toBe("SESSION_NOT_FOUND");
        expect(JSON.stringify(await store.dump())).toBe(before);
        // Two managers creating the same label at once: one block, one BLOCK_EXISTS.
        const other = store.manager().withContext("memory");
        const outcomes = await Promise.allSettled([
          manager.createContextBlock(info.id, "race", { content: "a" }),
          other.createContextBlock(info.id, "race", { content: "b" }),
        ]);
        expect(
          outcomes.filter((outcome) => outcome.status === "fulfilled"),
        ).toHaveLength(1);
      },
    );

    suite.it(
      "a fork has the source's created blocks (definition and content at the fork) and its declared blocks' contents",
      async (store) => {
        const manager = store.manager().withContext("memory");
        const source = await manager.create("source");
        await manager.append(source.id, text("u1", "hello"));
        await manager.append(source.id, text("u2", "plans?"));
        await manager
          .getSession(source.id)
          .replaceContextBlock("memory", "likes tea");
        await manager.createContextBlock(source.id, "plans", {
          description: "The user's plans",
          maxTokens: 200,
          content: "Trip to Lisbon in May.",
        });
        const fork = await manager.fork(source.id, "u1", "forked");
        // Later writes to the source stay in the source.
        await manager
          .getSession(source.id)
          .replaceContextBlock("plans", "Trip to Porto in June.");
        // A manager started afresh reads the fork's blocks from the store.
        const other = store.manager().withContext("memory");
        const session = other.getSession(fork.id);
        const blocks = await session.loadContext();
        expect(
          blocks.map((block) => [block.label, block.content, block.maxTokens]),
        ).toEqual([
          ["memory", "likes tea", undefined],
          ["plans", "Trip to Lisbon in May.", 200],
        ]);
        const { system } = await assembleContext(session, { freeze: false });
        expect(system).toContain("The user's plans");
        expect(
          (await session.getContextBlockHistory("plans")).map(
            (version) => version.content,
          ),
        ).toEqual(["Trip to Lisbon in May."]);
        // The fork's block is its own: writing it leaves the source's as it is.
        await session.replaceContextBlock("plans", "Stay home.");
        expect(
          (await other.getSession(source.id).loadContext()).find(
            (block) => block.label === "plans",
          )?.content,
        ).toBe("Trip to Porto in June.");
      },
    );

    suite.it(
      "a snapshot carries created blocks: an import defines them again with their contents; an older snapshot imports as before",
      async (store) => {
        const manager = store.manager();
        const info = await manager.create("chat");
        await manager.append(info.id, text("u1", "hello"));
        await manager.createContextBlock(info.id, "plans", {
          description: "The user's plans",
          maxTokens: 200,
          content: "Trip to Lisbon in May.",
        });
        await manager.createContextBlock(info.id, "empty-one");
        const snapshot = await manager.exportSession(info.id);
        expect(snapshot.createdBlocks).toEqual({
          plans: { description: "The user's plans", maxTokens: 200 },
          "empty-one": {},
        });
        expect(snapshot.contextBlocks).toEqual({
          plans: "Trip to Lisbon in May.",
          "empty-one": "",
        });
        const copy = await manager.importSession(
          JSON.parse(JSON.stringify(snapshot)) as typeof snapshot,
          { newId: true },
        );
        const restored = store.manager().getSession(copy.id);
        expect(
          // Created blocks load in the order the registry lists them.
          (await restored.loadContext())
            .map((block) => [
              block.label,
              block.content,
              block.description,
              block.maxTokens,
            ])
            .sort(),
        ).toEqual([
          ["empty-one", "", undefined, undefined],
          ["plans", "Trip to Lisbon in May.", "The user's plans", 200],
        ]);
        // A snapshot from before created blocks: no definitions, its contents of unknown labels
        // ignored, as they always were.
        const { createdBlocks: _dropped, ...older } = snapshot;
        const plain = await manager.importSession(older, { newId: true });
        expect(await manager.getSession(plain.id).loadContext()).toEqual([]);
        expect(await manager.getMessageCount(plain.id)).toBe(1);
        // A bad definition is refused before anything is written.
        const before = JSON.stringify(await store.dump());
        for (const createdBlocks of [
          { "two words": {} },
          { plans: { maxTokens: -1 } },
          { plans: { description: 7 } },
          [],
        ]) {
          // Through JSON, as a snapshot file arrives: any shape at all.
          const bad = JSON.parse(
            JSON.stringify({ ...snapshot, createdBlocks }),
          ) as typeof snapshot;
          const error = await caught(() =>
            manager.importSession(bad, { newId: true }),
          );
          expect((error as { code?: string } | undefined)?.code).toBe(
            "INVALID_SNAPSHOT",
          );
        }
        // Content above the definition's maxTokens: the import is all or nothing.
        const tooLarge = await caught(() =>
          manager.importSession(
            {
              ...snapshot,
              createdBlocks: { plans: { maxTokens: 2 } },
            },
            { newId: true },
          ),
        );
        expect((tooLarge as { code?: string } | undefined)?.code).toBe(
          "BLOCK_TOO_LARGE",
        );
        expect(JSON.stringify(await store.dump())).toBe(before);
      },
    );

    suite.it(
      "deleting the session removes its created blocks' definitions, contents and history",
      async (store) => {
        const manager = store.manager();
        const doomed = await manager.create("doomed");
        const kept = await manager.create("kept");
        await manager.createContextBlock(doomed.id, "secret-block", {
          content: "doomed-secret-text",
        });
        await manager.createContextBlock(kept.id, "kept-block", {
          content: "kept text",
        });
        expect(JSON.stringify(await store.dump())).toContain(
          "doomed-secret-text",
        );
        expect(await manager.delete(doomed.id)).toBe(true);
        const dump = JSON.stringify(await store.dump());
        expect(dump.includes("doomed-secret-text")).toBe(false);
        expect(dump.includes("secret-block")).toBe(false);
        const keptBlocks = await manager.getSession(kept.id).loadContext();
        expect(keptBlocks.map((block) => block.content)).toEqual(["kept text"]);
      },
    );
  });
}
