import { caught } from "../helpers.js";
import { assembleContext } from "../../utils/assemble-context.js";
import type { ChangeEvent } from "../../session/contracts/changes.js";
import type { ManagerSuite } from "../manager-suite.js";
import { text } from "./manager-support.js";

/** Deleting a created block (`manager.deleteContextBlock()`), and the feed's word of both writes. */
export function managerCreatedBlocksDeleteSpec(suite: ManagerSuite): void {
  const { expect } = suite;
  const code = async (run: () => Promise<unknown>) =>
    ((await caught(run)) as { code?: string } | undefined)?.code;

  suite.describe("deleting created blocks", () => {
    suite.it(
      "deleting a created block removes its definition, content and history for every process; the label can be created again, empty",
      async (store) => {
        const manager = store.manager().withContext("memory");
        const info = await manager.create("chat");
        await manager.append(info.id, text("u1", "hello"));
        await manager.createContextBlock(info.id, "plans", {
          description: "The user's plans",
          content: "first-plan-text",
        });
        await manager
          .getSession(info.id)
          .replaceContextBlock("plans", "second-plan-text");
        // Another process has the block loaded when it goes.
        const other = store.manager().withContext("memory");
        expect(
          (await other.getSession(info.id).loadContext()).map((b) => b.label),
        ).toEqual(["memory", "plans"]);
        expect(
          (await manager.getSession(info.id).loadContext()).find(
            (block) => block.label === "plans",
          )?.created,
        ).toBe(true);

        await manager.deleteContextBlock(info.id, "plans");

        const dump = JSON.stringify(await store.dump());
        expect(dump.includes("first-plan-text")).toBe(false);
        expect(dump.includes("second-plan-text")).toBe(false);
        expect(dump.includes("block:plans")).toBe(false);
        const session = manager.getSession(info.id);
        expect((await session.loadContext()).map((b) => b.label)).toEqual([
          "memory",
        ]);
        const { system } = await assembleContext(session, { freeze: false });
        expect(system.includes("PLANS")).toBe(false);
        // The other process's next load no longer has it.
        expect(
          (await other.getSession(info.id).loadContext({ reload: true })).map(
            (b) => b.label,
          ),
        ).toEqual(["memory"]);
        // A new block of the label starts empty, its history at version 1.
        const again = await other.createContextBlock(info.id, "plans");
        expect([again.content, again.created]).toEqual(["", true]);
        await other
          .getSession(info.id)
          .replaceContextBlock("plans", "a fresh start");
        expect(
          (await other.getSession(info.id).getContextBlockHistory("plans")).map(
            (version) => [version.version, version.content],
          ),
        ).toEqual([[1, "a fresh start"]]);
        // A declared block never says it was created.
        expect(
          (await session.loadContext()).find((b) => b.label === "memory")
            ?.created,
        ).toBe(undefined);
      },
    );

    suite.it(
      "deleting refuses a declared block, an unknown label, a block deleted already and an unknown session, writing nothing",
      async (store) => {
        const manager = store.manager().withContext("memory");
        const info = await manager.create("chat");
        await manager.getSession(info.id).replaceContextBlock("memory", "tea");
        await manager.createContextBlock(info.id, "plans", { content: "x" });
        await manager.deleteContextBlock(info.id, "plans");
        const before = JSON.stringify(await store.dump());
        expect(
          await code(() => manager.deleteContextBlock(info.id, "memory")),
        ).toBe("BLOCK_READONLY");
        expect(
          await code(() => manager.deleteContextBlock(info.id, "plans")),
        ).toBe("BLOCK_NOT_FOUND");
        expect(
          await code(() => manager.deleteContextBlock(info.id, "nothing")),
        ).toBe("BLOCK_NOT_FOUND");
        expect(
          await code(() => manager.deleteContextBlock("missing", "plans")),
        ).toBe("SESSION_NOT_FOUND");
        expect(JSON.stringify(await store.dump())).toBe(before);
        expect(
          (await manager.getSession(info.id).loadContext()).map(
            (block) => block.content,
          ),
        ).toEqual(["tea"]);
      },
    );

    suite.it(
      "creating a block (with content or without) and deleting one are block changes on the feed",
      async (store) => {
        const manager = store.manager();
        const info = await manager.create("chat");
        const events: ChangeEvent[] = [];
        const stop = manager.watch((event) => void events.push(event));
        // The watch is live once it hears a write: the block writes come after it.
        await manager.append(info.id, text("u1", "hello"));
        await settle(() => events.some((event) => event.type === "append"));
        await manager.createContextBlock(info.id, "empty-one");
        await manager.createContextBlock(info.id, "notes", { content: "x" });
        await manager.deleteContextBlock(info.id, "empty-one");
        const blocks = () =>
          events.filter(
            (event) => event.type === "block" && event.sessionId === info.id,
          );
        await settle(() => blocks().length >= 4);
        stop();
        // The claim of "notes" and its first version are one change each.
        expect(blocks().map((event) => event.ids)).toEqual([
          ["empty-one"],
          ["notes"],
          ["notes"],
          ["empty-one"],
        ]);
      },
    );
  });
}

/** Waits for `done`, at most `timeoutMs` (a ceiling for a slow machine, never a timing check). */
async function settle(done: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done() && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 10));
}
