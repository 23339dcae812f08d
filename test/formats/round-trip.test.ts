// Snapshot JSON and tree JSONL round-trip losslessly: a real session with branches, an overlay,
// a block, a frozen prompt, an owner and metadata goes out and comes back equal, on SQLite and in memory.
import { describe, expect, it } from "vitest";
import {
  importConversations,
  parseConversations,
  toArborJsonl,
  toSnapshotJson,
} from "../../src/formats/index.js";
import type {
  SessionManager,
  SessionSnapshot,
} from "../../src/session/index.js";
import { ids, memoryManager, sqliteManager } from "./support.js";

const BACKENDS: Array<[string, () => SessionManager]> = [
  ["SQLite", sqliteManager],
  ["memory", memoryManager],
];

describe.each(BACKENDS)("round trip on %s", (_name, makeManager) => {
  it("tree JSONL holds everything a snapshot holds, and the active leaf", async () => {
    const manager = makeManager();
    const { id, activeLeaf } = await branchedSession(manager);
    const exported = await manager.exportSession(id);
    const jsonl = toArborJsonl(exported, activeLeaf);
    const [parsed] = parseConversations(jsonl, { fileName: "x.arbor.jsonl" });
    expect(parsed!.format).toBe("arbor-jsonl");
    expect(parsed!.activeLeafId).toBe(activeLeaf);
    expect(parsed!.title).toBe("Branchy");
    expect(parsed!.snapshot).toEqual(plain(exported));
    // Written again, it is the same file, byte for byte.
    expect(toArborJsonl(parsed!.snapshot, parsed!.activeLeafId)).toBe(jsonl);
  });

  it("snapshot JSON reads back equal", async () => {
    const manager = makeManager();
    const { id } = await branchedSession(manager);
    const exported = await manager.exportSession(id);
    const [parsed] = parseConversations(toSnapshotJson(exported));
    expect(parsed!.format).toBe("snapshot");
    expect(parsed!.snapshot).toEqual(plain(exported));
  });

  it("re-imports into a session equal to the original but for its id", async () => {
    const manager = makeManager();
    const { id, activeLeaf } = await branchedSession(manager);
    const exported = await manager.exportSession(id);
    const conversations = parseConversations(
      toArborJsonl(exported, activeLeaf),
    );
    const [info] = await importConversations(manager, conversations, {
      ownerId: "owner-1",
    });
    const again = await manager.exportSession(info!.id);
    const strip = (snapshot: SessionSnapshot) => {
      const {
        sessionId: _id,
        exportedAt: _at,
        info: row,
        compactions,
        ...rest
      } = plain(snapshot);
      const { id: _rowId, updated_at: _updated, ...kept } = row!;
      return {
        ...rest,
        info: kept,
        compactions: compactions.map(({ id: _c, ...other }) => other),
      };
    };
    expect(strip(again)).toEqual(strip(exported));
    const session = manager.getSession(info!.id);
    // The overlay got a fresh id (overlay ids are unique per store); its summary message shows it.
    const history = async (sessionId: string) =>
      ids(await manager.getSession(sessionId).getHistory()).map((messageId) =>
        messageId.replace(/^compaction_.*/, "compaction"),
      );
    expect(await history(info!.id)).toEqual(["compaction", "u2", "a2"]);
    expect(await history(info!.id)).toEqual(await history(id));
    expect(
      (await session.getContextBlockHistory("memory")).map(
        (version) => version.content,
      ),
    ).toContain("- Likes green tea");
  });
});

// --- Helpers ---

/** A session with two branch points, the non-latest branch active, an overlay, a block and a prompt. */
async function branchedSession(
  manager: SessionManager,
): Promise<{ id: string; activeLeaf: string }> {
  const info = await manager.create("Branchy", {
    ownerId: "owner-1",
    metadata: { topic: "tea" },
  });
  const session = manager.getSession(info.id);
  const say = (
    id: string,
    role: string,
    text: string,
    parentId?: string | null,
  ) =>
    session.appendMessage(
      { id, role, parts: [{ type: "text", text }] },
      parentId,
    );
  await say("u1", "user", "Which tea for the afternoon?");
  await say("a1", "assistant", "Sencha: light, little caffeine.");
  await say("u2", "user", "Something stronger?");
  await say("a2", "assistant", "Assam, with milk.");
  await say("a2b", "assistant", "A smoky Lapsang souchong.", "u2");
  await say("u3", "user", "No smoke please.", "a1");
  await session.appendMessage(
    {
      id: "a3",
      role: "assistant",
      parts: [
        {
          type: "tool-lookup",
          toolCallId: "c1",
          state: "output-available",
          input: { q: "green" },
          output: ["Gyokuro"],
        },
        { type: "text", text: "Gyokuro, then." },
      ],
    },
    "u3",
  );
  await session.addCompaction(
    "Asked for an afternoon tea; sencha suggested.",
    "u1",
    "a1",
  );
  await session.replaceContextBlock("memory", "- Likes green tea");
  await session.freezeSystemPrompt();
  await session.switchBranch("a2");
  return { id: info.id, activeLeaf: "a2" };
}

/** The snapshot as JSON sees it (dates as strings). */
function plain(snapshot: SessionSnapshot): SessionSnapshot {
  return JSON.parse(JSON.stringify(snapshot)) as SessionSnapshot;
}
