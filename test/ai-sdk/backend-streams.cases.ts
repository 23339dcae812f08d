// The optional `streams` capability of the Backend contract, the same cases on every built-in
// backend (runners: backend-streams.test.ts, backend-streams-postgres.int.test.ts).
import { describe, expect, it } from "vitest";
import type { BackendStreams } from "../../src/session/index.js";

export function runBackendStreamsCases(
  name: string,
  create: () => Promise<BackendStreams>,
): void {
  describe(`Backend streams on ${name}`, () => {
    const live = { staleAfterMs: 60_000 };

    it("stores chunks in order and reads them from any index; done after finish", async () => {
      const streams = await create();
      expect(await streams.read("s", 0)).toBeNull();
      expect(await streams.begin("s", "one", live)).toBe(true);
      expect(await streams.append("s", "one", ["a", "b"])).toEqual({
        stopRequested: false,
      });
      await streams.append("s", "one", ["c"]);
      expect(await streams.read("s", 1)).toEqual({
        streamId: "one",
        status: "active",
        stopRequested: false,
        chunkCount: 3,
        chunks: ["b", "c"],
      });
      await streams.finish("s", "one");
      const done = await streams.read("s", 0);
      expect(done).toMatchObject({ status: "done", chunks: ["a", "b", "c"] });
      expect(
        (await streams.read("s", Number.MAX_SAFE_INTEGER))?.chunks,
      ).toEqual([]);
    });

    it("one active stream per session: a second begin is refused until the first is done", async () => {
      const streams = await create();
      expect(await streams.begin("s", "one", live)).toBe(true);
      expect(await streams.begin("s", "two", live)).toBe(false);
      expect(await streams.begin("other", "three", live)).toBe(true);
      await streams.finish("s", "one");
      expect(await streams.begin("s", "two", live)).toBe(true);
      const read = await streams.read("s", 0);
      expect(read).toMatchObject({
        streamId: "two",
        chunkCount: 0,
        chunks: [],
      });
    });

    it("a stream that went silent is taken over; its writer is told to stop and writes nothing", async () => {
      const streams = await create();
      await streams.begin("s", "old", live);
      await streams.append("s", "old", ["x"]);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await streams.begin("s", "new", { staleAfterMs: 5 })).toBe(true);
      expect(await streams.append("s", "old", ["late"])).toEqual({
        stopRequested: true,
      });
      await streams.finish("s", "old");
      expect(await streams.read("s", 0)).toMatchObject({
        streamId: "new",
        status: "active",
        chunks: [],
      });
    });

    it("a stop request reaches the writer on its next append, and only while active", async () => {
      const streams = await create();
      expect(await streams.requestStop("s")).toBe(false);
      await streams.begin("s", "one", live);
      expect(await streams.requestStop("s")).toBe(true);
      expect((await streams.read("s", 0))?.stopRequested).toBe(true);
      expect(await streams.append("s", "one", ["y"])).toEqual({
        stopRequested: true,
      });
      await streams.finish("s", "one");
      expect(await streams.requestStop("s")).toBe(false);
    });
  });
}
