// ArborStore on the in-memory backend and SQLite (support/store-cases.ts); PostgreSQL in
// store-postgres.int.test.ts. And the tombstone a store writes where a provider cannot delete.
import { describe, expect, it } from "vitest";
import { ArborStore } from "../../src/langgraph/index.js";
import { memoryBackend, type Backend } from "../../src/session/index.js";
import { sqliteBackend } from "../../src/sqlite/index.js";
import { runStoreCases } from "./support/store-cases.js";

runStoreCases("memoryBackend()", () => memoryBackend());
runStoreCases("sqliteBackend(':memory:')", () => sqliteBackend(":memory:"));

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
