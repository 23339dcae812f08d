/**
 * Internal: the per-script counts behind `estimateStringTokensMultilingual`. One pass over the
 * code points, no allocation besides the result; `bench/tokens/fit.mjs` fits the weights on them.
 */

/** What one pass over a text counts. Each field has one weight in `MULTILINGUAL_TOKEN_WEIGHTS`. */
export interface ScriptFeatures {
  /** Runs of Latin letters, split at camelCase humps (`getHistory` is 2). */
  latinWords: number;
  /** Latin letters, accented ones included. */
  latinLetters: number;
  /** Accented Latin letters (U+00C0–U+024F, U+1E00–U+1EFF, combining marks): rarer merges. */
  latinAccented: number;
  /** Runs of Cyrillic letters. */
  cyrillicWords: number;
  /** Han ideographs (Chinese hanzi, Japanese kanji). */
  han: number;
  /** Hiragana and katakana characters. */
  kana: number;
  /** Runs of kana: a run often merges into one token. */
  kanaRuns: number;
  /** Hangul syllables and jamo. */
  hangul: number;
  /** Letters of other scripts (Greek, Arabic, Hebrew, Indic, Thai, …). */
  otherLetters: number;
  /** Digit groups: digits are cut into groups of up to three. */
  digitGroups: number;
  /** ASCII punctuation characters that differ from the one before. */
  punctuation: number;
  /** ASCII punctuation characters repeating the one before (`----`, `====`). */
  punctuationRepeats: number;
  /** Runs of ASCII punctuation (`");`, `=>`). */
  punctuationRuns: number;
  /** Other symbols (CJK punctuation, arrows, box drawing, emoji) that differ from the one before. */
  symbols: number;
  /** Other symbols repeating the one before (`════`). */
  symbolRepeats: number;
  /** Runs of line breaks. */
  newlineRuns: number;
  /** Runs of two or more spaces or tabs (indentation, alignment). */
  indentRuns: number;
}

/** The feature names, in a fixed order (the fit script's column order). */
export const SCRIPT_FEATURE_NAMES: readonly (keyof ScriptFeatures)[] = [
  "latinWords",
  "latinLetters",
  "latinAccented",
  "cyrillicWords",
  "han",
  "kana",
  "kanaRuns",
  "hangul",
  "otherLetters",
  "digitGroups",
  "punctuation",
  "punctuationRepeats",
  "punctuationRuns",
  "symbols",
  "symbolRepeats",
  "newlineRuns",
  "indentRuns",
];

/** Counts the features of `text` in O(length). */
export function countScriptFeatures(text: string): ScriptFeatures {
  const features: ScriptFeatures = {
    latinWords: 0,
    latinLetters: 0,
    latinAccented: 0,
    cyrillicWords: 0,
    han: 0,
    kana: 0,
    kanaRuns: 0,
    hangul: 0,
    otherLetters: 0,
    digitGroups: 0,
    punctuation: 0,
    punctuationRepeats: 0,
    punctuationRuns: 0,
    symbols: 0,
    symbolRepeats: 0,
    newlineRuns: 0,
    indentRuns: 0,
  };
  let previousClass = NONE;
  let previousCode = -1;
  let runLength = 0;
  let previousLower = false;

  for (let index = 0; index < text.length; index++) {
    let code = text.charCodeAt(index);
    if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length) {
      const low = text.charCodeAt(index + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
        index++;
      }
    }
    const charClass = classify(code);
    if (charClass !== previousClass) {
      endRun(features, previousClass, runLength);
      runLength = 0;
    }
    runLength++;

    switch (charClass) {
      case LATIN: {
        const upper = code >= 0x41 && code <= 0x5a;
        // A lower-to-upper step starts a new word: BPE vocabularies split camelCase there.
        if (upper && previousLower && runLength > 1) features.latinWords++;
        previousLower = !upper;
        features.latinLetters++;
        if (code >= 0x80) features.latinAccented++;
        break;
      }
      case HAN:
        features.han++;
        break;
      case KANA:
        features.kana++;
        break;
      case HANGUL:
        features.hangul++;
        break;
      case OTHER_LETTER:
        features.otherLetters++;
        break;
      case PUNCTUATION:
        if (code === previousCode) features.punctuationRepeats++;
        else features.punctuation++;
        break;
      case SYMBOL:
        if (code === previousCode) features.symbolRepeats++;
        else features.symbols++;
        break;
    }
    if (charClass !== LATIN) previousLower = false;
    previousClass = charClass;
    previousCode = code;
  }
  endRun(features, previousClass, runLength);
  return features;
}

// --- Internal helpers ---

const NONE = 0;
const LATIN = 1;
const CYRILLIC = 2;
const HAN = 3;
const KANA = 4;
const HANGUL = 5;
const OTHER_LETTER = 6;
const DIGIT = 7;
const SPACE = 8;
const NEWLINE = 9;
const PUNCTUATION = 10;
const SYMBOL = 11;

function endRun(
  features: ScriptFeatures,
  charClass: number,
  length: number,
): void {
  switch (charClass) {
    case LATIN:
      features.latinWords++;
      break;
    case CYRILLIC:
      features.cyrillicWords++;
      break;
    case KANA:
      features.kanaRuns++;
      break;
    case DIGIT:
      features.digitGroups += Math.ceil(length / 3);
      break;
    case PUNCTUATION:
      features.punctuationRuns++;
      break;
    case NEWLINE:
      features.newlineRuns++;
      break;
    case SPACE:
      if (length >= 2) features.indentRuns++;
      break;
  }
}

function classify(code: number): number {
  if (code < 0x80) {
    if ((code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a))
      return LATIN;
    if (code >= 0x30 && code <= 0x39) return DIGIT;
    if (code === 0x20 || code === 0x09) return SPACE;
    if (code === 0x0a || code === 0x0d) return NEWLINE;
    if (code < 0x20 || code === 0x7f) return SPACE;
    return PUNCTUATION;
  }
  if (code === 0xa0 || code === 0x3000 || (code >= 0x2000 && code <= 0x200a))
    return SPACE;
  if (code === 0x2028 || code === 0x2029) return NEWLINE;
  if (
    (code >= 0xc0 && code <= 0x24f && code !== 0xd7 && code !== 0xf7) ||
    (code >= 0x300 && code <= 0x36f) ||
    (code >= 0x1e00 && code <= 0x1eff)
  )
    return LATIN;
  if (code >= 0x400 && code <= 0x52f) return CYRILLIC;
  if (
    (code >= 0x4e00 && code <= 0x9fff) ||
    (code >= 0x3400 && code <= 0x4dbf) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0x20000 && code <= 0x3ffff)
  )
    return HAN;
  if (
    (code >= 0x3040 && code <= 0x30ff) ||
    (code >= 0x31f0 && code <= 0x31ff) ||
    (code >= 0xff66 && code <= 0xff9f)
  )
    return KANA;
  if (
    (code >= 0xac00 && code <= 0xd7af) ||
    (code >= 0x1100 && code <= 0x11ff) ||
    (code >= 0x3130 && code <= 0x318f)
  )
    return HANGUL;
  // Greek through the Indic, Southeast Asian and Georgian blocks, plus Ethiopic and Cherokee.
  if ((code >= 0x370 && code <= 0x3ff) || (code >= 0x530 && code <= 0x1dbf))
    return OTHER_LETTER;
  return SYMBOL;
}
