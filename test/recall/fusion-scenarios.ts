// The fusion rule of hybrid search (docs/search.md#how-hybrid-fuses), on every backend through
// the recall scenarios: vectors that say nothing about the query leave the text ranking as it
// is, vectors that agree with the words beyond chance reorder it and add what words miss. Both
// use fake embedders, so each case knows what must be found.
import type { Embedder, SearchHit } from "../../src/session/index.js";
import { fakeEmbedder } from "../../src/testing/fake-embedder.js";
import type { RecallBackend } from "./recall-scenarios.js";
import { check, same, text } from "./recall-scenarios.js";

type Scenario = (backend: RecallBackend) => Promise<void>;

export const FUSION_SCENARIOS: Record<string, Scenario> = {
  "hybrid with a fake embedder of random vectors keeps the text ranking, its own finds after it":
    async (backend) => {
      const manager = backend.manager().withEmbeddings(randomFakeEmbedder(), {
        model: "fake-random",
      });
      const { id } = await manager.create("random vectors");
      const session = manager.getSession(id);
      // Three messages hold a query word, 150 do not: each text's vector is random, so about
      // half of them point towards any query. Three text matches can put at most three into the
      // semantic ranking's first 20, less the share chance puts there: below the agreement at
      // which vectors count (2), whatever the draw.
      await session.appendAll([
        ...Array.from({ length: 150 }, (_, n) =>
          text(`filler${n}`, "assistant", `Notes on topic ${n} for the week`),
        ),
        text("m1", "user", "The invoice for the harbour crane is overdue"),
        text("m2", "assistant", "I paid the crane invoice yesterday"),
        text("m3", "user", "Which harbour did we pick?"),
      ]);
      await manager.flushEmbeddings();
      const query = "crane invoice harbour";
      const words = ids(await session.search(query, { mode: "text" }));
      same(words.length, 3, "three text matches");
      const hybrid = await session.search(query, { mode: "hybrid" });
      same(
        ids(hybrid).slice(0, 3),
        words,
        "hybrid starts with the text ranking",
      );
      check(hybrid.length === 20, `a full page: ${hybrid.length}`);
      check(
        hybrid.slice(3).every((hit) => hit.matched?.text === false),
        "the vectors' own finds follow",
      );
      check(
        hybrid.every(
          (hit, i) =>
            i === 0 || (hit.score ?? 0) <= (hybrid[i - 1]?.score ?? 0),
        ),
        "scores fall in result order",
      );
    },

  "hybrid with a fake embedder that knows synonyms finds what no word matches, after the word matches":
    async (backend) => {
      const manager = backend.manager().withEmbeddings(fakeEmbedder(), {
        model: "fake-v1",
      });
      const { id } = await manager.create("synonyms agree");
      const session = manager.getSession(id);
      // "automobile repair": twelve repairs match a word; a hundred messages name a vehicle
      // (a word the embedder knows as an automobile) and no query word.
      await session.appendAll([
        ...Array.from({ length: 100 }, (_, n) =>
          text(`truck${n}`, "user", `The truck broke down near exit ${n}`),
        ),
        ...Array.from({ length: 8 }, (_, n) =>
          text(`car${n}`, "assistant", `Car repair at garage ${n}`),
        ),
        ...Array.from({ length: 4 }, (_, n) =>
          text(`fence${n}`, "user", `Repair, repair fence ${n}`),
        ),
      ]);
      await manager.flushEmbeddings();
      const query = "automobile repair";
      const words = ids(await session.search(query, { mode: "text" }));
      same(words.length, 12, "twelve text matches");
      const hybrid = await session.search(query, { mode: "hybrid" });
      same(
        [...ids(hybrid).slice(0, 12)].sort(),
        [...words].sort(),
        "the word matches lead",
      );
      same(
        hybrid.slice(0, 12).every((hit) => hit.matched?.semantic === true),
        true,
        "the vectors rank every word match too",
      );
      check(
        hybrid.slice(12).length === 8 &&
          hybrid.slice(12).every((hit) => hit.id.startsWith("truck")),
        `vehicles no word matches fill the page: ${ids(hybrid)}`,
      );
    },
};

// --- Helpers ---

/**
 * A fake embedder of random vectors: the same for the same text on every backend and run (a
 * seeded generator), unrelated between any two texts.
 */
function randomFakeEmbedder(dimensions = 64): Embedder {
  return async (texts) =>
    texts.map((body) => {
      let state = seedOf(body);
      return Array.from({ length: dimensions }, () => {
        state = (state + 0x6d2b79f5) >>> 0;
        let t = state;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return (((t ^ (t >>> 14)) >>> 0) / 4294967296) * 2 - 1;
      });
    });
}

/** FNV-1a over UTF-16 code units. */
function seedOf(body: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < body.length; i++) {
    h ^= body.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

function ids(hits: SearchHit[]): string[] {
  return hits.map((hit) => hit.id);
}
