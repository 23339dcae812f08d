// ArborStore on the in-memory backend and SQLite (support/store-cases.ts); PostgreSQL in
// store-postgres.int.test.ts. A hybrid `query` after `withEmbeddings()`, with the fake embedder of
// src/testing. And the tombstone a store writes where a provider cannot delete.
import { describe, expect, it } from "vitest";
import { ArborStore } from "../../src/langgraph/index.js";
import { memoryBackend, type Backend } from "../../src/session/index.js";
import { sqliteBackend } from "../../src/sqlite/index.js";
import { fakeEmbedder } from "../../src/testing/index.js";
import { runStoreCases } from "./support/store-cases.js";

runStoreCases("memoryBackend()", () => memoryBackend());
runStoreCases("sqliteBackend(':memory:')", () => sqliteBackend(":memory:"));

describe.each([
  ["memoryBackend()", () => memoryBackend()],
  ["sqliteBackend(':memory:')", () => sqliteBackend(":memory:")],
])("ArborStore over %s with embeddings (fake embedder)", (_name, create) => {
  it("finds by meaning an item that no word of the query matches", async () => {
    const store = new ArborStore(create());
    store.manager.withEmbeddings(fakeEmbedder());
    await store.put(["garage"], "car", { text: "I drive an automobile" });
    await store.put(["garage"], "pet", { text: "The kitten sleeps inside" });
    await store.put(["other"], "van", { text: "A rented automobile" });
    await store.manager.flushEmbeddings();

    // "truck" is in no item's text: the text ranking alone finds nothing …
    expect(await store.manager.search("truck", { mode: "text" })).toEqual([]);
    // … while the hybrid ranking of the store's `query` finds the automobile by its vector
    // (truck and automobile are one synonym group of the fake embedder), in the namespace asked.
    const hits = await store.search(["garage"], { query: "truck" });
    expect(hits.map((item) => item.key)).toEqual(["car"]);
    expect(hits[0]!.value).toEqual({ text: "I drive an automobile" });
    expect(hits[0]!.score).toBeGreaterThan(0);
  });
});

describe("ArborStore over a backend whose provider cannot delete a config entry", () => {
  it("deletes an item with a tombstone the reads skip", async () => {
    const base = memoryBackend();
    const backend: Backend = {
      name: base.name,
      identity: base.identity,
      registry: base.registry,
      session: (sessionId) => {
        const provider = base.session(sessionId);
        return new Proxy(provider, {
          get: (target, property) =>
            property === "setConfig"
              ? undefined
              : (Reflect.get(target, property) as unknown),
        });
      },
    };
    const store = new ArborStore(backend);
    await store.put(["t"], "gone", { text: "to forget" });
    await store.put(["t"], "kept", { text: "to keep" });
    await store.delete(["t"], "gone");
    expect(await store.get(["t"], "gone")).toBeNull();
    expect((await store.search(["t"])).map((item) => item.key)).toEqual([
      "kept",
    ]);
    await store.put(["t"], "gone", { text: "back" });
    expect((await store.get(["t"], "gone"))?.value).toEqual({ text: "back" });
  });
});
