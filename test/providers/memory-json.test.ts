import { describe, expect, it, vi } from "vitest";
import {
  InMemorySessionProvider,
  InMemorySessionRegistry,
  Session,
  type InMemorySessionProviderSnapshot,
} from "../../src/session/index.js";
import { build, ids, textMessage, tree } from "../../src/testing/fixtures.js";

// InMemorySessionProvider.toJSON() / fromJSON(): a store saved as JSON comes back identical.

/** Two sessions with branches, a deletion, an update, overlays, config, blocks and a registry row. */
async function populatedStore(): Promise<InMemorySessionProvider> {
  const root = new InMemorySessionProvider({ sessionId: "a" });
  const b = root.forSession("b");
  await build(
    root,
    tree({ r: { x: { y: { z: {} } }, q: {} } }),
    tree({ s: { t: {} } }),
  );
  root.appendMessage(
    {
      ...textMessage("dated", "the deploy happened"),
      createdAt: new Date("2024-05-01T10:00:00.000Z"),
    },
    "x",
  );
  root.deleteMessages(["y"]);
  root.updateMessage({ ...textMessage("q", "deploy notes"), role: "system" });
  root.addCompaction("summary of r..x", "r", "x", { summarizer: "test" });
  root.addCompaction("reversed, ignored on read", "z", "r");
  root.setConfig("branch", "z");
  // Registered before its first message, which would register it as unmanaged otherwise.
  new InMemorySessionRegistry(root.storeIdentity).insert({
    id: "b",
    name: "Session B",
    parent_session_id: null,
    model: "m",
    source: null,
    input_tokens: 3,
    output_tokens: 4,
    estimated_cost: 0.5,
    end_reason: null,
    created_at: "2024-05-01T10:00:00.000Z",
    updated_at: "2024-05-01T10:00:00.000Z",
  });
  await build(b, tree({ m1: { m2: { m3: {} } } }));
  b.addCompaction("b summary", "m2", "m3");
  b.setConfig("owner", "alice");
  await root.createContextProvider("memory:a").set("remember deploys");
  root.createBlockHistory().record("memory", {
    content: "v1",
    previousContent: null,
    source: "api",
  });
  root.createBlockHistory().record("memory", {
    content: "v2",
    previousContent: "v1",
    source: "tool",
    toolCallId: "call-1",
  });
  return root;
}

function roundTrip(provider: InMemorySessionProvider): InMemorySessionProvider {
  return InMemorySessionProvider.fromJSON(
    JSON.parse(JSON.stringify(provider)) as unknown,
  );
}

/** Everything a reader can observe of one session. */
function observe(provider: InMemorySessionProvider) {
  const records = provider.exportMessages();
  const everyId = records.map((record) => record.message.id);
  return {
    records,
    histories: everyId.map((id) => [id, provider.getHistory(id)]),
    branches: everyId.map((id) => [id, provider.getBranches(id)]),
    history: provider.getHistory(),
    latestLeaf: provider.getLatestLeaf(),
    latestLeafId: provider.getLatestLeafId(),
    compactions: provider.getCompactions(),
    search: provider.searchMessages("deploy"),
    recent: provider.getRecentHistory(undefined, 60),
    rowStats: provider.getHistoryRowStats(),
    config: [provider.getConfig("branch"), provider.getConfig("owner")],
  };
}

describe("InMemorySessionProvider JSON snapshots", () => {
  it("round-trips every session, branch, overlay, config value and search", async () => {
    const original = await populatedStore();
    const restored = roundTrip(original);
    expect(restored.sessionId).toBe("a");
    for (const sessionId of ["a", "b"]) {
      expect(observe(restored.forSession(sessionId))).toEqual(
        observe(original.forSession(sessionId)),
      );
    }
    // The message's own createdAt comes back as a Date, the stored time as it was.
    expect(restored.getMessage("dated")?.createdAt).toEqual(
      new Date("2024-05-01T10:00:00.000Z"),
    );
    expect(ids(restored.getHistory("z"))).toEqual(
      ids(original.getHistory("z")),
    );
    expect(restored.toJSON()).toEqual(original.toJSON());
  });

  it("keeps context-block rows, block history and registry rows", async () => {
    const original = await populatedStore();
    const restored = roundTrip(original);
    expect(await restored.createContextProvider("memory:a").get()).toBe(
      "remember deploys",
    );
    const history = restored.createBlockHistory();
    expect(history.list("memory").map((version) => version.content)).toEqual([
      "v1",
      "v2",
    ]);
    expect(history.list("memory")[1]?.toolCallId).toBe("call-1");
    // Later writes continue the numbering.
    expect(
      history.record("memory", {
        content: "v3",
        previousContent: "v2",
        source: "api",
      }).version,
    ).toBe(3);
    const registry = new InMemorySessionRegistry(restored.storeIdentity);
    const before = new InMemorySessionRegistry(original.storeIdentity);
    expect(registry.get("b")).toEqual(before.get("b"));
    expect(registry.getConfig("b", "owner")).toBe("alice");
    const hits = registry.search("text", { limit: 10 });
    expect(hits.length).toBeGreaterThan(0);
    expect(hits).toEqual(before.search("text", { limit: 10 }));
  });

  it("continues the right chain and the insertion order after a restore", async () => {
    const original = await populatedStore();
    const restored = roundTrip(original);
    // Each row records when it was stored, and the two stores are written a moment apart
    // (CI once saw a millisecond tick between them): the clock stands still while they are.
    vi.useFakeTimers({
      toFake: ["Date"],
      now: new Date("2024-05-02T10:00:00.000Z"),
    });
    try {
      for (const provider of [original, restored]) {
        provider.appendMessage(textMessage("after-1", "deploy again"));
        provider.appendMessage(textMessage("after-2", "deploy again"), "r");
        provider.forSession("b").appendMessage(textMessage("b-after"));
      }
    } finally {
      vi.useRealTimers();
    }
    expect(observe(restored)).toEqual(observe(original));
    expect(observe(restored.forSession("b"))).toEqual(
      observe(original.forSession("b")),
    );
    expect(restored.getMessage("after-1")).not.toBeNull();
    expect(restored.getHistory("after-1").at(-2)?.id).toBe(
      original.getHistory("after-1").at(-2)?.id,
    );
    // Equal search scores: the newest row first, so the sequence continued past the restored rows.
    expect(ids(restored.searchMessages("again"))).toEqual([
      "after-2",
      "after-1",
    ]);
  });

  it("works through a Session and from the JSON text itself", async () => {
    const provider = new InMemorySessionProvider({ sessionId: "chat" });
    const session = Session.create(provider);
    await session.appendMessage(textMessage("u1", "hello"));
    await session.appendMessage(textMessage("a1", "hi"));
    const restored = Session.create(
      InMemorySessionProvider.fromJSON(JSON.stringify(provider)),
    );
    expect(ids(await restored.getHistory())).toEqual(["u1", "a1"]);
    await restored.appendMessage(textMessage("u2", "again"));
    expect(ids(await restored.getHistory())).toEqual(["u1", "a1", "u2"]);
    // The original is untouched by writes to the copy.
    expect(ids(await session.getHistory())).toEqual(["u1", "a1"]);
  });

  it("takes a snapshot that later writes do not change", async () => {
    const provider = new InMemorySessionProvider();
    provider.appendMessage(textMessage("m1"));
    const snapshot = provider.toJSON();
    provider.appendMessage(textMessage("m2"));
    provider.updateMessage(textMessage("m1", "changed"));
    const restored = InMemorySessionProvider.fromJSON(snapshot);
    expect(ids(restored.getHistory())).toEqual(["m1"]);
    expect(restored.getMessage("m1")?.parts).toEqual(textMessage("m1").parts);
  });

  it("round-trips an empty provider", () => {
    const restored = roundTrip(new InMemorySessionProvider());
    expect(restored.getHistory()).toEqual([]);
    expect(restored.getLatestLeaf()).toBeNull();
    restored.appendMessage(textMessage("m1"));
    expect(ids(restored.getHistory())).toEqual(["m1"]);
  });

  it("rejects a malformed snapshot with INVALID_SNAPSHOT and names the bad field", async () => {
    const valid = JSON.parse(
      JSON.stringify(await populatedStore()),
    ) as InMemorySessionProviderSnapshot;
    const broken = (
      edit: (snapshot: Record<string, any>) => void,
    ): Record<string, any> => {
      const copy = structuredClone(valid) as Record<string, any>;
      edit(copy);
      return copy;
    };
    const cases: Array<[string, unknown, string]> = [
      ["not an object", 42, "`snapshot` must be an object"],
      ["not JSON text", "{not json", "not JSON"],
      ["an array", [], "`snapshot` must be an object"],
      [
        "another format",
        broken((s) => (s.format = "arbor.session")),
        "arbor.in-memory-store",
      ],
      ["another version", broken((s) => (s.version = 2)), "version 1"],
      [
        "no sessions",
        broken((s) => delete s.sessions),
        "`snapshot.sessions` must be an array",
      ],
      [
        "a sequence that does not rise",
        broken((s) => (s.sessions[0].messages[1].seq = 1)),
        "snapshot.sessions[0].messages[1].seq",
      ],
      [
        "a sequence shared by two sessions",
        broken((s) => (s.sessions[1].messages[0].seq = 1)),
        "snapshot.sessions[1].messages[0].seq",
      ],
      [
        "an invalid message",
        broken((s) => (s.sessions[0].messages[0].message = { id: "r" })),
        "snapshot.sessions[0].messages[0].message",
      ],
      [
        "a parent that is not a string",
        broken((s) => (s.sessions[0].messages[1].parentId = 7)),
        "snapshot.sessions[0].messages[1].parentId",
      ],
      [
        "a duplicate message id",
        broken((s) =>
          s.sessions[0].messages.push({
            ...s.sessions[0].messages[0],
            seq: 999,
          }),
        ),
        'message id "r" appears twice',
      ],
      [
        "a compaction without summary",
        broken((s) => delete s.sessions[0].compactions[0].summary),
        "snapshot.sessions[0].compactions[0].summary",
      ],
      [
        "a config entry that is not a pair",
        broken((s) => (s.sessions[0].config = [["branch"]])),
        "snapshot.sessions[0].config[0]",
      ],
      [
        "a session listed twice",
        broken((s) => s.sessions.push({ ...s.sessions[0], messages: [] })),
        'session "a" appears twice',
      ],
      [
        "a block version out of order",
        broken((s) => (s.blockHistory[0].versions[1].version = 5)),
        "snapshot.blockHistory[0].versions[1].version",
      ],
      [
        "a registry row with a text counter",
        broken((s) => (s.registry[0].input_tokens = "3")),
        "snapshot.registry[0].input_tokens",
      ],
      ["no nextSeq", broken((s) => (s.nextSeq = 0)), "snapshot.nextSeq"],
    ];
    for (const [label, input, mentions] of cases) {
      let error: unknown;
      try {
        InMemorySessionProvider.fromJSON(input);
      } catch (thrown) {
        error = thrown;
      }
      const summary = error as {
        code?: unknown;
        message?: string;
        [marker: symbol]: unknown;
      };
      expect({
        label,
        isError: error instanceof Error,
        code: summary?.code,
        marked: summary?.[Symbol.for("arbor.error")],
      }).toEqual({
        label,
        isError: true,
        code: "INVALID_SNAPSHOT",
        marked: true,
      });
      expect(summary.message, label).toContain(mentions);
    }
  });
});
