// Loads the token-estimation corpus and cuts each document into paragraph-sized samples.
// Shared by fit.mjs, evaluate.mjs and the held-out accuracy test, so all three see the same samples.
import { readdirSync, readFileSync } from "node:fs";

export const CATEGORIES = [
  "english",
  "russian",
  "japanese",
  "chinese",
  "spanish",
  "polish",
  "code",
  "json",
];

export const MIN_SAMPLE_CHARS = 200;
export const MAX_SAMPLE_CHARS = 800;

/** Every sample of one set ("fit" or "heldout"): `{ category, file, text }`, in a stable order. */
export function loadSamples(set, root = new URL("./corpus/", import.meta.url)) {
  const samples = [];
  for (const category of CATEGORIES) {
    const dir = new URL(`${set}/${category}/`, root);
    for (const file of readdirSync(dir)
      .filter((name) => name.endsWith(".txt"))
      .sort()) {
      const text = readFileSync(new URL(file, dir), "utf8");
      for (const piece of splitIntoSamples(text))
        samples.push({ category, file, text: piece });
    }
  }
  return samples;
}

/**
 * Cuts a document into consecutive samples of MIN..MAX characters at paragraph breaks (falling
 * back to line, sentence and space breaks for long paragraphs). Nothing is dropped: the samples
 * concatenate back to the document.
 */
export function splitIntoSamples(
  text,
  min = MIN_SAMPLE_CHARS,
  max = MAX_SAMPLE_CHARS,
) {
  const pieces = splitBy(text, /(?<=\n[ \t]*\n)/, max);
  const samples = [];
  let current = "";
  for (const piece of pieces) {
    if (current.length >= min && current.length + piece.length > max) {
      samples.push(current);
      current = "";
    }
    current += piece;
  }
  if (current.length > 0) {
    // A short tail joins the previous sample rather than becoming a tiny sample of its own.
    if (current.length < min && samples.length > 0)
      samples[samples.length - 1] += current;
    else samples.push(current);
  }
  return samples;
}

// --- Internal helpers ---

const FINER = [/(?<=\n)/, /(?<=[.!?。！？]\s)|(?<=[。！？])/, /(?<= )/];

function splitBy(text, pattern, max, level = 0) {
  const out = [];
  for (const part of text.split(pattern)) {
    if (part.length <= max) out.push(part);
    else if (level < FINER.length)
      out.push(...splitBy(part, FINER[level], max, level + 1));
    else
      for (let at = 0; at < part.length; at += max)
        out.push(part.slice(at, at + max));
  }
  return out.filter((part) => part.length > 0);
}
