// The embedder of the benchmark's semantic and hybrid rows. No model weights can be loaded where
// this benchmark must run (a fresh clone after `npm ci`), so it is a deterministic local function,
// NOT a neural model: each text becomes a bag of its words (stop words left out) and of their
// character trigrams, hashed into 512 dimensions and normalised. Trigrams make inflections and
// typos land near each other ("skiing" ~ "ski"); it knows no synonyms and no paraphrase, so its
// figures are a floor for what a real embedding model does through the same code path.
import { words } from "./queries.mjs";

export const DIMENSIONS = 512;
export const EMBEDDER_NAME =
  "hashed word + character-trigram vectors, 512 dimensions (deterministic, not a neural model)";

const SKIPPED = new Set(
  "a an and are be did do does for from had has have i in is it me my of on or so that the this to was we were what when where which who why with you your".split(
    " ",
  ),
);

/** FNV-1a over UTF-16 code units: the same number on every run. */
function hash(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** One text's vector. */
export function embed(text) {
  const vector = new Float64Array(DIMENSIONS);
  for (const word of words(text)) {
    if (SKIPPED.has(word)) continue;
    vector[hash(`w:${word}`) % DIMENSIONS] += 1;
    const padded = `<${word}>`;
    for (let i = 0; i + 3 <= padded.length; i++)
      vector[hash(`t:${padded.slice(i, i + 3)}`) % DIMENSIONS] += 0.5;
  }
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm) || 1;
  return Array.from(vector, (value) => value / norm);
}

/** The embedder as Arbor's `withEmbeddings()` takes it: texts in, vectors out. */
export const hashedEmbedder = async (texts) => texts.map(embed);
