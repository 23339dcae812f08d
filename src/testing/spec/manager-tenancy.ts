import type { SessionSnapshot } from "../../session/contracts/session-info.js";
import { caught, messageOf, summarizeError } from "../helpers.js";
import type { ManagerSuite } from "../manager-suite.js";
import { text, ids, populate, describeSession } from "./manager-support.js";

export function managerTenancySpec(suite: ManagerSuite): void {
  const { expect } = suite;

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
        // A deleted session takes its owner with it: its owner can no longer resume it.
        await manager.delete(mine.id);
        const deleted = await caught(() => manager.resume(mine.id, "alice"));
        expect(summarizeError(deleted).code).toBe("SESSION_NOT_FOUND");
        expect(await manager.getOwner(mine.id)).toBeNull();
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
        JSON.parse(JSON.stringify(snapshot)) as SessionSnapshot,
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
      "a branch chosen with switchBranch is active again after export and import",
      async (store) => {
        const manager = store.manager();
        const info = await manager.create("switched");
        await populate(manager, info.id);
        await manager.getSession(info.id).switchBranch("a2-regenerated");
        const snapshot = await manager.exportSession(info.id);
        expect(snapshot.activeLeafId).toBe("a2-regenerated");
        const copy = await manager.importSession(
          JSON.parse(JSON.stringify(snapshot)) as SessionSnapshot,
          { newId: true },
        );
        const session = manager.getSession(copy.id);
        expect((await session.getLatestLeaf())?.id).toBe("a2-regenerated");
        expect(ids(await session.getHistory()).at(-1)).toBe("a2-regenerated");
      },
    );

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
            // @ts-expect-error -- an invalid snapshot on purpose
            manager.importSession(bad, { newId: true }),
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
        const tampered = JSON.parse(
          JSON.stringify(snapshot),
        ) as SessionSnapshot;
        Object.assign(tampered.messages[0]!.message.parts[0]!, {
          text: "forged",
        });
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
