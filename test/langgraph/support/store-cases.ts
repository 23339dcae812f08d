// The store cases, run on ArborStore over each backend. The first block is LangGraph's own
// InMemoryStore tests (libs/checkpoint/src/tests/store.test.ts of langchain-ai/langgraphjs),
// ported to ArborStore with the assertions unchanged:
//
//   MIT License. Copyright (c) 2024 LangChain
//
//   Permission is hereby granted, free of charge, to any person obtaining a copy of this software
//   and associated documentation files (the "Software"), to deal in the Software without
//   restriction, including without limitation the rights to use, copy, modify, merge, publish,
//   distribute, sublicense, and/or sell copies of the Software, and to permit persons to whom the
//   Software is furnished to do so, subject to the following conditions: The above copyright
//   notice and this permission notice shall be included in all copies or substantial portions of
//   the Software. THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
//   IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A
//   PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE
//   LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR
//   OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS
//   IN THE SOFTWARE.
//
// The second block is Arbor's: ranked text search for `query`, filters, `index`, timestamps.
import { InvalidNamespaceError } from "@langchain/langgraph-checkpoint";
import { beforeEach, describe, expect, it } from "vitest";
import { ArborStore } from "../../../src/langgraph/index.js";
import type { Backend } from "../../../src/session/index.js";

/** Registers every store case on stores over the backends `create` returns (fresh or emptied). */
export function runStoreCases(
  name: string,
  create: () => Backend | Promise<Backend>,
): void {
  describe(`ArborStore over ${name}`, () => {
    let store: ArborStore;

    beforeEach(async () => {
      store = new ArborStore(await create());
    });

    describe("LangGraph's InMemoryStore cases", () => {
      it("should implement get method", async () => {
        await store.put(["test"], "123", { value: 1 });
        const result = await store.get(["test"], "123");
        expect(result).toEqual({
          value: { value: 1 },
          key: "123",
          namespace: ["test"],
          createdAt: expect.any(Date),
          updatedAt: expect.any(Date),
        });
      });

      it("should implement search method", async () => {
        await store.put(["test"], "123", { value: 1 });
        await store.put(["test"], "456", { value: 2 });
        const result = await store.search(["test"]);
        expect(result).toHaveLength(2);
        expect(result[0]).toMatchObject({
          value: { value: 1 },
          key: "123",
          namespace: ["test"],
        });
        expect(result[1]).toMatchObject({
          value: { value: 2 },
          key: "456",
          namespace: ["test"],
        });
      });

      it("should implement put method", async () => {
        await store.put(["test"], "123", { value: 1 });
        const result = await store.get(["test"], "123");
        expect(result).toMatchObject({
          value: { value: 1 },
          key: "123",
          namespace: ["test"],
        });
      });

      it("should implement delete method", async () => {
        await store.put(["test"], "123", { value: 1 });
        await store.delete(["test"], "123");
        const result = await store.get(["test"], "123");
        expect(result).toBeNull();
      });

      it("should implement listNamespaces method", async () => {
        await store.put(["a", "b", "c"], "1", { value: 1 });
        await store.put(["a", "b", "d"], "2", { value: 2 });
        await store.put(["x", "y", "z"], "3", { value: 3 });

        const result = await store.listNamespaces({});
        expect(result).toEqual([
          ["a", "b", "c"],
          ["a", "b", "d"],
          ["x", "y", "z"],
        ]);
      });

      it("should filter namespaces by prefix", async () => {
        await store.put(["a", "b", "c"], "1", { value: 1 });
        await store.put(["a", "b", "d"], "2", { value: 2 });
        await store.put(["x", "y", "z"], "3", { value: 3 });

        const result = await store.listNamespaces({ prefix: ["a"] });
        expect(result).toEqual([
          ["a", "b", "c"],
          ["a", "b", "d"],
        ]);
      });

      it("should apply maxDepth to listNamespaces results", async () => {
        await store.put(["a", "b", "c"], "1", { value: 1 });
        await store.put(["a", "b", "d"], "2", { value: 2 });
        await store.put(["x", "y", "z"], "3", { value: 3 });

        const result = await store.listNamespaces({ maxDepth: 2 });
        expect(result).toEqual([
          ["a", "b"],
          ["x", "y"],
        ]);
      });

      it("Should block invalid namespaces in put", async () => {
        const doc = { foo: "bar" };

        // Test invalid namespaces
        await expect(store.put([], "foo", doc)).rejects.toThrow(
          InvalidNamespaceError,
        );
        await expect(
          store.put(["the", "thing.about"], "foo", doc),
        ).rejects.toThrow(InvalidNamespaceError);
        await expect(
          store.put(["some", "fun", ""], "foo", doc),
        ).rejects.toThrow(InvalidNamespaceError);
        await expect(
          store.put(["langgraph", "foo"], "bar", doc),
        ).rejects.toThrow(InvalidNamespaceError);

        await store.put(["foo", "langgraph", "foo"], "bar", doc);
        const result = await store.get(["foo", "langgraph", "foo"], "bar");
        expect(result?.value).toEqual(doc);

        const searchResult = await store.search(["foo", "langgraph", "foo"]);
        expect(searchResult[0]!.value).toEqual(doc);

        await store.delete(["foo", "langgraph", "foo"], "bar");
        const deletedResult = await store.get(
          ["foo", "langgraph", "foo"],
          "bar",
        );
        expect(deletedResult).toBeNull();

        await store.batch([
          { namespace: ["langgraph", "foo"], key: "bar", value: doc },
        ]);
        const batchResult = await store.get(["langgraph", "foo"], "bar");
        expect(batchResult?.value).toEqual(doc);

        const batchSearchResult = await store.search(["langgraph", "foo"]);
        expect(batchSearchResult[0]!.value).toEqual(doc);

        await store.delete(["langgraph", "foo"], "bar");
        const batchDeletedResult = await store.get(["langgraph", "foo"], "bar");
        expect(batchDeletedResult).toBeNull();
      });
    });

    describe("Arbor's cases", () => {
      it("answers a text query with Arbor's ranked search, every word first, within the namespace prefix", async () => {
        await store.put(["users", "ada"], "drink", {
          text: "Ada drinks green tea every morning",
        });
        await store.put(["users", "ada"], "city", {
          text: "Ada lives in Lisbon",
        });
        await store.put(["users", "bob"], "drink", { text: "Bob likes tea" });
        await store.put(["teams", "core"], "drink", {
          text: "The team likes tea",
        });

        const hits = await store.search(["users"], { query: "green tea" });
        expect(hits.map((hit) => [hit.namespace, hit.key])).toEqual([
          [["users", "ada"], "drink"],
          [["users", "bob"], "drink"],
        ]);
        expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score!);
        const onlyAda = await store.search(["users", "ada"], { query: "tea" });
        expect(onlyAda.map((hit) => hit.key)).toEqual(["drink"]);
      });

      it("finds an item by its new text after an update and not after a delete", async () => {
        await store.put(["notes"], "n1", { text: "meeting on Monday" });
        await store.put(["notes"], "n1", { text: "meeting moved to Friday" });
        expect(
          (await store.search(["notes"], { query: "Monday" })).length,
        ).toBe(0);
        expect(
          (await store.search(["notes"], { query: "Friday" })).map(
            (hit) => hit.key,
          ),
        ).toEqual(["n1"]);
        await store.delete(["notes"], "n1");
        expect(await store.search(["notes"], { query: "Friday" })).toEqual([]);
      });

      it("indexes only the `index` fields, and nothing with `index: false`", async () => {
        await store.put(
          ["docs"],
          "a",
          { title: "Quarterly report", body: "revenue grew" },
          ["title"],
        );
        await store.put(["docs"], "b", { title: "Secret revenue" }, false);
        expect(
          (await store.search(["docs"], { query: "revenue" })).map(
            (hit) => hit.key,
          ),
        ).toEqual([]);
        expect(
          (await store.search(["docs"], { query: "quarterly" })).map(
            (hit) => hit.key,
          ),
        ).toEqual(["a"]);
        // Not indexed is still stored and listed.
        expect((await store.search(["docs"])).map((item) => item.key)).toEqual([
          "a",
          "b",
        ]);
      });

      it("filters by value fields and operators, with limit and offset", async () => {
        for (const [key, score, tag] of [
          ["a", 1, "x"],
          ["b", 5, "y"],
          ["c", 9, "x"],
        ] as const)
          await store.put(["scores"], key, { score, tag, text: `item ${key}` });
        const keys = async (options: Parameters<ArborStore["search"]>[1]) =>
          (await store.search(["scores"], options)).map((item) => item.key);
        expect(await keys({ filter: { tag: "x" } })).toEqual(["a", "c"]);
        expect(await keys({ filter: { score: { $gte: 5 } } })).toEqual([
          "b",
          "c",
        ]);
        expect(await keys({ filter: { tag: { $in: ["y"] } } })).toEqual(["b"]);
        expect(await keys({ filter: { tag: { $ne: "x" } } })).toEqual(["b"]);
        expect(await keys({ limit: 1, offset: 1 })).toEqual(["b"]);
        expect(
          await keys({ query: "item", filter: { tag: "x" } }),
        ).toHaveLength(2);
      });

      it("keeps createdAt and moves updatedAt on an update", async () => {
        await store.put(["t"], "k", { v: 1 });
        const first = await store.get(["t"], "k");
        await store.put(["t"], "k", { v: 2 });
        const second = await store.get(["t"], "k");
        expect(second?.value).toEqual({ v: 2 });
        expect(second?.createdAt).toEqual(first?.createdAt);
        expect(second!.updatedAt.getTime()).toBeGreaterThanOrEqual(
          first!.updatedAt.getTime(),
        );
      });
    });
  });
}
