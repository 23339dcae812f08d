// Snapshot JSON and tree JSONL round-trip losslessly: a real session with branches, an overlay,
// a block, a frozen prompt, an owner and metadata goes out and comes back equal, on SQLite and in
// memory; and a sample of every import format, once in Arbor, goes out as tree JSONL and back
// without losing anything.
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
import { fixture, ids, memoryManager, sqliteManager } from "./support.js";

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
    // The copy knows where it came from: the exported session.
    expect(again.metadata).toMatchObject({
      "import.format": "arbor",
      "import.sourceId": id,
      topic: "tea",
    });
    const strip = (snapshot: SessionSnapshot) => {
      const {
        sessionId: _id,
        exportedAt: _at,
        info: row,
        compactions,
        metadata,
        ...rest
      } = plain(snapshot);
      const { id: _rowId, updated_at: _updated, ...kept } = row!;
      return {
        ...rest,
        info: kept,
        metadata: Object.fromEntries(
          Object.entries(metadata ?? {}).filter(
            ([key]) => !key.startsWith("import."),
          ),
        ),
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

  it("a created block goes out in tree JSONL and snapshot JSON and comes back defined, with its content", async () => {
    const manager = makeManager();
    const { id, activeLeaf } = await branchedSession(manager);
    await manager.createContextBlock(id, "plans", {
      description: "The user's plans",
      maxTokens: 200,
      content: "Trip to Lisbon in May.",
    });
    const exported = await manager.exportSession(id);
    const files = [
      toArborJsonl(exported, activeLeaf),
      toSnapshotJson(exported),
    ];
    for (const file of files) {
      // Into another store, where nothing of the session is.
      const other = makeManager();
      const [info] = await importConversations(other, parseConversations(file));
      const block = (await other.getSession(info!.id).loadContext()).find(
        (candidate) => candidate.label === "plans",
      );
      expect(block).toMatchObject({
        content: "Trip to Lisbon in May.",
        description: "The user's plans",
        maxTokens: 200,
        writable: true,
      });
    }
  });
});

/** One sample file of every format the import reads. */
const SOURCES: Array<[string, string]> = [
  ["chatgpt", "chatgpt-conversations.json"],
  ["chatgpt", "chatgpt-browsing.json"],
  ["openai", "openai-chat.json"],
  ["ui-messages", "ui-messages.json"],
  ["pi", "pi-session.jsonl"],
  ["pi", "pi-v1-session.jsonl"],
  ["claude-code", "claude-code-session.jsonl"],
  ["claude-code", "claude-code-parallel-tools.jsonl"],
  ["claude-code", "claude-code-real-compacted.jsonl"],
  ["codex", "codex-rollout-tools.jsonl"],
  [
    "codex",
    "rollout-2025-12-28T12-18-30-019b64e5-57fa-7463-b644-fba7e456f905.jsonl",
  ],
  ["codex", "codex-desktop-rollout.jsonl"],
  ["codex", "codex-cli-first-turn.jsonl"],
  ["pi", "pi-v1-bash-execution.jsonl"],
  ["chatgpt", "chatgpt-citations.json"],
];

describe.each(BACKENDS)(
  "source → Arbor → tree JSONL → Arbor on %s",
  (_name, makeManager) => {
    it.each(SOURCES)("%s: %s comes back equal", async (format, file) => {
      const manager = makeManager();
      const parsed = parseConversations(fixture(file), { fileName: file });
      expect(
        parsed.every((conversation) => conversation.format === format),
      ).toBe(true);
      const first = await importConversations(manager, parsed);
      for (const info of first) {
        const exported = await manager.exportSession(info.id);
        const activeLeaf =
          (await manager.getSession(info.id).getLatestLeaf())?.id ?? null;
        const [again] = parseConversations(toArborJsonl(exported, activeLeaf));
        // Into another store: in this one, the same source is already there (and is skipped).
        const other = makeManager();
        const [copy] = await importConversations(other, [again!]);
        const reexported = await other.exportSession(copy!.id);
        expect(sessionContent(reexported)).toEqual(sessionContent(exported));
        expect(
          (await other.getSession(copy!.id).getLatestLeaf())?.id ?? null,
        ).toBe(activeLeaf);
        expect(await importConversations(manager, [again!])).toEqual([]);
      }
    });
  },
);

// --- Helpers ---

/** What a session holds, without what a new copy changes (its id, row times, overlay ids). */
function sessionContent(snapshot: SessionSnapshot) {
  const {
    sessionId: _id,
    exportedAt: _at,
    info,
    compactions,
    ...rest
  } = plain(snapshot);
  const { id: _rowId, updated_at: _updated, ...row } = info!;
  // Each import records when it wrote the session: the one field a round trip changes.
  const { "import.importedAt": _importedAt, ...metadata } = rest.metadata ?? {};
  return {
    ...rest,
    metadata,
    info: row,
    compactions: compactions.map(({ id: _overlay, ...other }) => other),
  };
}

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
