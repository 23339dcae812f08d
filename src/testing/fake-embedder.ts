/**
 * A deterministic fake embedder for tests (docs/search.md): a hashed bag of words with a small
 * synonym table, so a test knows exactly which texts are near each other. Not a model: two texts
 * are similar only when they share a word or a synonym group.
 */

/** Options of `fakeEmbedder()`. */
export interface FakeEmbedderOptions {
  /** Vector length; default 512 (fewer hash collisions between unrelated words). */
  dimensions?: number;
  /** Word → group name; words of one group embed the same. Default `FAKE_SYNONYMS`. */
  synonyms?: Readonly<Record<string, string>>;
  /** Called with each batch before it is embedded; throw from it to simulate an outage. */
  onCall?: (texts: string[]) => void;
}

/** The default synonym groups of `fakeEmbedder()`. */
export const FAKE_SYNONYMS: Readonly<Record<string, string>> = {
  ship: "deploy",
  ships: "deploy",
  shipping: "deploy",
  release: "deploy",
  launch: "deploy",
  deploy: "deploy",
  deployment: "deploy",
  friday: "weekday",
  monday: "weekday",
  date: "weekday",
  day: "weekday",
  car: "vehicle",
  automobile: "vehicle",
  vehicle: "vehicle",
  truck: "vehicle",
  cat: "feline",
  kitten: "feline",
  feline: "feline",
};

/** Words that carry no meaning in the fake embedding. */
const STOP_WORDS = new Set(
  "a an and are as at be by do for from has have i in is it its of on or our the to was we what when will with you".split(
    " ",
  ),
);

/**
 * A fake `(texts) => Promise<number[][]>` embedder; see the module comment.
 *
 * @example
 * ```ts
 * session.withEmbeddings(fakeEmbedder(), { model: "fake-512" });
 * ```
 */
export function fakeEmbedder(
  options: FakeEmbedderOptions = {},
): (texts: string[]) => Promise<number[][]> {
  const dimensions = options.dimensions ?? 512;
  const synonyms = options.synonyms ?? FAKE_SYNONYMS;
  return async (texts) => {
    options.onCall?.(texts);
    return texts.map((text) => {
      const vector = new Array<number>(dimensions).fill(0);
      for (const word of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
        if (word.length === 0 || STOP_WORDS.has(word)) continue;
        vector[hash(synonyms[word] ?? word) % dimensions]! += 1;
      }
      return vector;
    });
  };
}

/** FNV-1a over UTF-16 code units: stable across runs and runtimes. */
function hash(word: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) {
    h ^= word.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}
