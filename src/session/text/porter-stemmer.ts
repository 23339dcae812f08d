/**
 * The Porter stemmer (M. F. Porter, "An algorithm for suffix stripping", 1980), in the revision
 * of Porter's own reference implementation that SQLite's FTS5 `porter` tokenizer also follows
 * (`bli` → `ble`, `logi` → `log` in step 2). The in-memory backend stems with it, so a word
 * finds the same forms there as on SQLite: `connections`, `connected` and `connecting` all stem
 * to `connect`.
 *
 * Like FTS5, it stems tokens of 3 to 64 characters and leaves others as they are; a character
 * outside `a`–`z` counts as a consonant, so a token of another script passes through unchanged
 * unless it happens to end in an English suffix made of ASCII letters.
 */
export function porterStem(token: string): string {
  if (token.length < 3 || token.length > 64) return token;
  let word = step1a(token);
  word = step1b(word);
  word = step1c(word);
  word = replaceSuffix(word, STEP2, 0);
  word = replaceSuffix(word, STEP3, 0);
  word = step4(word);
  word = step5(word);
  return word;
}

// --- Internal helpers ---

function isConsonant(word: string, at: number): boolean {
  const letter = word[at];
  if (
    letter === "a" ||
    letter === "e" ||
    letter === "i" ||
    letter === "o" ||
    letter === "u"
  )
    return false;
  if (letter === "y") return at === 0 ? true : !isConsonant(word, at - 1);
  return true;
}

/** Porter's m: the number of vowel-consonant sequences in `stem`. */
function measure(stem: string): number {
  let count = 0;
  let at = 0;
  while (at < stem.length && isConsonant(stem, at)) at++;
  while (at < stem.length) {
    while (at < stem.length && !isConsonant(stem, at)) at++;
    if (at >= stem.length) break;
    while (at < stem.length && isConsonant(stem, at)) at++;
    count++;
  }
  return count;
}

function hasVowel(stem: string): boolean {
  for (let at = 0; at < stem.length; at++)
    if (!isConsonant(stem, at)) return true;
  return false;
}

function endsDoubleConsonant(word: string): boolean {
  const last = word.length - 1;
  return last >= 1 && word[last] === word[last - 1] && isConsonant(word, last);
}

/** Consonant-vowel-consonant at the end, the last consonant not w, x or y. */
function endsCvc(word: string): boolean {
  const last = word.length - 1;
  if (last < 2) return false;
  if (
    !isConsonant(word, last) ||
    isConsonant(word, last - 1) ||
    !isConsonant(word, last - 2)
  )
    return false;
  const letter = word[last];
  return letter !== "w" && letter !== "x" && letter !== "y";
}

function step1a(word: string): string {
  if (word.endsWith("sses")) return word.slice(0, -2);
  if (word.endsWith("ies")) return word.slice(0, -2);
  if (word.endsWith("ss")) return word;
  if (word.endsWith("s")) return word.slice(0, -1);
  return word;
}

function step1b(word: string): string {
  if (word.endsWith("eed")) {
    const stem = word.slice(0, -3);
    return measure(stem) > 0 ? `${stem}ee` : word;
  }
  let stem: string | null = null;
  if (word.endsWith("ed") && hasVowel(word.slice(0, -2)))
    stem = word.slice(0, -2);
  else if (word.endsWith("ing") && hasVowel(word.slice(0, -3)))
    stem = word.slice(0, -3);
  if (stem === null) return word;
  if (stem.endsWith("at") || stem.endsWith("bl") || stem.endsWith("iz"))
    return `${stem}e`;
  if (endsDoubleConsonant(stem) && !/[lsz]$/.test(stem))
    return stem.slice(0, -1);
  if (measure(stem) === 1 && endsCvc(stem)) return `${stem}e`;
  return stem;
}

function step1c(word: string): string {
  if (word.endsWith("y") && hasVowel(word.slice(0, -1)))
    return `${word.slice(0, -1)}i`;
  return word;
}

/**
 * Step 2's and 3's suffixes, longest first where one ends another, each as `suffix=replacement`
 * (an empty replacement drops the suffix).
 */
const STEP2 = suffixTable(
  "ational=ate tional=tion enci=ence anci=ance izer=ize logi=log bli=ble alli=al entli=ent " +
    "eli=e ousli=ous ization=ize ation=ate ator=ate alism=al iveness=ive fulness=ful " +
    "ousness=ous aliti=al iviti=ive biliti=ble",
);

const STEP3 = suffixTable(
  "icate=ic ative= alize=al iciti=ic ical=ic ful= ness=",
);

/**
 * The first suffix of `table` the word ends with is replaced when the stem before it has
 * m > `minMeasure`; either way no other suffix is tried (Porter's rule).
 */
function replaceSuffix(
  word: string,
  table: ReadonlyArray<readonly [string, string]>,
  minMeasure: number,
): string {
  for (const [suffix, replacement] of table) {
    if (!word.endsWith(suffix)) continue;
    const stem = word.slice(0, -suffix.length);
    return measure(stem) > minMeasure ? stem + replacement : word;
  }
  return word;
}

const STEP4 = [
  "al",
  "ance",
  "ence",
  "er",
  "ic",
  "able",
  "ible",
  "ant",
  "ement",
  "ment",
  "ent",
  "ion",
  "ou",
  "ism",
  "ate",
  "iti",
  "ous",
  "ive",
  "ize",
];

function step4(word: string): string {
  for (const suffix of STEP4) {
    if (!word.endsWith(suffix)) continue;
    const stem = word.slice(0, -suffix.length);
    if (suffix === "ion" && !/[st]$/.test(stem)) return word;
    return measure(stem) > 1 ? stem : word;
  }
  return word;
}

function step5(word: string): string {
  let out = word;
  if (out.endsWith("e")) {
    const stem = out.slice(0, -1);
    const m = measure(stem);
    if (m > 1 || (m === 1 && !endsCvc(stem))) out = stem;
  }
  if (out.endsWith("ll") && measure(out) > 1) out = out.slice(0, -1);
  return out;
}

function suffixTable(pairs: string): ReadonlyArray<readonly [string, string]> {
  return pairs.split(" ").map((pair) => pair.split("=") as [string, string]);
}
