import { describe, expect, it } from "vitest";
import { memoryBackend } from "../../src/backends/memory/memory-backend.js";
import { InMemorySessionProvider } from "../../src/backends/memory/index.js";
import { MemoryStore } from "../../src/backends/memory/memory-store.js";
import type { TextSearchOptions } from "../../src/session/contracts/types.js";
import { ids, textMessage } from "../../src/testing/fixtures.js";

// The in-memory store's text index (memory-text-index.ts) is kept up to date by every write
// after a search has built it. A stale posting would surface as a hit on old text, a missed hit on
// new text, or a ranking off by the document frequencies of deleted rows: each case below searches
// first, writes, and checks the answers against the text as it now is.

const VOCABULARY =
  "deploy friday server cache review budget memory agent".split(" ");

/**
 * Message `i`: 2 to 10 words of `VOCABULARY` (lengths differ, so BM25's average length counts)
 * and a number. Over 4,000 messages "deploy" has more hits than the rank window and the rare-term
 * budget of a search for one hit, so the window, the rare-term arm and the every-term candidates
 * all read the postings' order.
 */
function sentence(i: number, salt = 0): string {
  return (
    Array.from(
      { length: wordCount(i, salt) },
      (_, k) =>
        VOCABULARY[(i * 5 + k * 3 + ((i * k + salt) % 7)) % VOCABULARY.length],
    ).join(" ") + ` n${i}`
  );
}

function wordCount(i: number, salt = 0): number {
  return 2 + ((i * 7 + salt) % 9);
}

const QUERIES = [
  "deploy",
  "deploy friday",
  "reviewed caching servers",
  "budget n7",
  "the memory",
  "imported",
  "n3",
];
const OPTIONS: Array<[number | undefined, TextSearchOptions | undefined]> = [
  [undefined, undefined],
  [1, undefined],
  [5, { match: "all" }],
  [1_000_000, undefined],
  [1_000_000, { match: "all" }],
];

/** Every answer of `provider` to the queries above, ids and contents. */
function answers(provider: InMemorySessionProvider) {
  return QUERIES.flatMap((query) =>
    OPTIONS.map(([limit, options]) =>
      provider
        .searchMessages(query, limit, options)
        .map(({ id, content }) => `${id}: ${content}`),
    ),
  );
}

/** A store holding only the rows `provider` holds now, indexed from scratch on its first search. */
function rebuilt(provider: InMemorySessionProvider): InMemorySessionProvider {
  const fresh = new InMemorySessionProvider({ sessionId: "s" });
  fresh.importRecords({ messages: provider.exportMessages(), compactions: [] });
  return fresh;
}

describe("in-memory text index", () => {
  it("ranks as a store indexed from scratch after updates, deletes, a branch delete, erase and import", async () => {
    const store = new MemoryStore();
    const backend = memoryBackend(store);
    const session = new InMemorySessionProvider({ sessionId: "s" }, store);
    for (let i = 0; i < 4_000; i++)
      session.appendMessage(
        textMessage(`m${i}`, sentence(i)),
        i === 0 ? null : `m${i - 1}`,
      );
    // A branch under m100, to delete with its children re-parented.
    session.appendMessage(textMessage("b1", "deploy branch root"), "m100");
    session.appendMessage(textMessage("b2", "deploy under the branch"), "b1");
    expect(answers(session)).toEqual(answers(rebuilt(session)));

    // Old rows change: each moves within the postings of its old and new words.
    for (let i = 0; i < 4_000; i += 9)
      session.updateMessage(textMessage(`m${i}`, sentence(i, 3)));
    session.updateMessage(textMessage("m5", ""));
    expect(answers(session)).toEqual(answers(rebuilt(session)));

    session.deleteMessages(["b1", "m7", "m399"]);
    session.deleteMessages(
      Array.from({ length: 60 }, (_, k) => `m${200 + k * 2}`),
    );
    expect(ids(session.searchMessages("branch"))).toEqual(["b2"]);
    expect(answers(session)).toEqual(answers(rebuilt(session)));
    // The longest messages go: the average length BM25 divides by must drop with them.
    session.deleteMessages(
      Array.from({ length: 2_000 }, (_, i) => `m${i}`).filter(
        (_, i) => i % 9 !== 0 && wordCount(i) === 10,
      ),
    );
    expect(answers(session)).toEqual(answers(rebuilt(session)));
    // One old row at a time: each joins its postings in the middle, not at the end.
    session.updateMessage(textMessage("m1", "deploy deploy friday"));
    session.updateMessage(textMessage("m2", "deploy budget budget n7"));
    expect(answers(session)).toEqual(answers(rebuilt(session)));

    await backend.erase!.eraseTarget(
      { sessionId: "s", messageIds: ["m3", "m12", "b2"], contextKeys: [] },
      { dryRun: false },
    );
    expect(session.searchMessages("n3")).toEqual([]);
    expect(session.searchMessages("branch")).toEqual([]);
    session.importRecords({
      messages: [
        {
          message: textMessage("old", "deploy imported from before"),
          parentId: null,
          createdAt: "2020-01-01T00:00:00.000Z",
        },
      ],
      compactions: [],
    });
    expect(ids(session.searchMessages("imported"))).toEqual(["old"]);
    expect(answers(session)).toEqual(answers(rebuilt(session)));
  });

  it("forgets the rows an import with replace and a clear drop", () => {
    const session = new InMemorySessionProvider({ sessionId: "s" });
    session.appendMessage(textMessage("m1", "apple pie"));
    expect(ids(session.searchMessages("apple"))).toEqual(["m1"]);
    session.importRecords({
      messages: [
        {
          message: textMessage("m1", "cherry pie"),
          parentId: null,
          createdAt: "2026-01-01T00:00:00.000Z",
        },
      ],
      compactions: [],
      replace: true,
    });
    expect(session.searchMessages("apple")).toEqual([]);
    expect(ids(session.searchMessages("pie cherry"))).toEqual(["m1"]);
    session.clearMessages();
    expect(session.searchMessages("pie")).toEqual([]);
    session.appendMessage(textMessage("m2", "pie again"));
    expect(ids(session.searchMessages("pie"))).toEqual(["m2"]);
  });

  it("follows the CJK text of updated and deleted messages", () => {
    const session = new InMemorySessionProvider({ sessionId: "s" });
    session.appendMessage(textMessage("m1", "東京タワーに行った"));
    session.appendMessage(textMessage("m2", "京都の寺"));
    expect(ids(session.searchMessages("タワー"))).toEqual(["m1"]);
    expect(ids(session.searchMessages("京"))).toEqual(["m2", "m1"]);
    session.updateMessage(textMessage("m1", "大阪城"));
    expect(session.searchMessages("タワー")).toEqual([]);
    expect(ids(session.searchMessages("大阪"))).toEqual(["m1"]);
    session.deleteMessages(["m2"]);
    expect(session.searchMessages("京")).toEqual([]);
  });

  it("re-indexes tool outputs when the setting changes after a search", async () => {
    const store = new MemoryStore();
    const backend = memoryBackend(store);
    const session = new InMemorySessionProvider({ sessionId: "s" }, store);
    session.appendMessage({
      id: "m1",
      role: "assistant",
      parts: [
        { type: "text", text: "looked it up" },
        {
          type: "tool-lookup",
          toolCallId: "c1",
          state: "output-available",
          input: { q: "weather" },
          output: "sunny tomorrow",
        },
      ],
    });
    expect(session.searchMessages("sunny")).toEqual([]);
    await backend.searchIndex!.configure({ toolOutputs: true });
    expect(ids(session.searchMessages("sunny"))).toEqual(["m1"]);
    await backend.searchIndex!.configure({ toolOutputs: false });
    expect(session.searchMessages("sunny")).toEqual([]);
    expect(ids(session.searchMessages("looked"))).toEqual(["m1"]);
  });

  it("leaves the snapshot as it was and restores a searchable store", () => {
    const session = new InMemorySessionProvider({ sessionId: "s" });
    for (let i = 0; i < 50; i++)
      session.appendMessage(textMessage(`m${i}`, sentence(i)));
    const before = JSON.stringify(session.toJSON());
    const found = answers(session);
    session.updateMessage(textMessage("m1", "budget memory"));
    session.updateMessage(textMessage("m1", sentence(1)));
    expect(JSON.stringify(session.toJSON())).toBe(before);
    const restored = InMemorySessionProvider.fromJSON(before);
    expect(answers(restored)).toEqual(found);
    restored.deleteMessages(["m2"]);
    expect(answers(restored)).toEqual(answers(rebuilt(restored)));
  });

  it("searches across sessions with the writes made after an earlier search", async () => {
    const store = new MemoryStore();
    const a = new InMemorySessionProvider({ sessionId: "a" }, store);
    const b = a.forSession("b");
    a.appendMessage(textMessage("a1", "deploy on friday"));
    b.appendMessage(textMessage("b1", "deploy the cache"));
    const registry = memoryBackend(store).registry;
    const search = async (query: string) =>
      (await registry.search(query, { limit: 20 })).map(
        ({ sessionId, id }) => `${sessionId}/${id}`,
      );
    expect(await search("deploy")).toEqual(["b/b1", "a/a1"]);
    b.updateMessage(textMessage("b1", "flush the cache"));
    a.appendMessage(textMessage("a2", "deploy again"));
    expect(await search("deploy")).toEqual(["a/a2", "a/a1"]);
    expect(await search("cache")).toEqual(["b/b1"]);
  });
});
