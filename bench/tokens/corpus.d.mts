/** Types of corpus.mjs, for the TypeScript tests that read the corpus. */
export type Category =
  | "english"
  | "russian"
  | "japanese"
  | "chinese"
  | "spanish"
  | "polish"
  | "code"
  | "json";

export interface Sample {
  category: Category;
  file: string;
  text: string;
}

export const CATEGORIES: readonly Category[];
export const MIN_SAMPLE_CHARS: number;
export const MAX_SAMPLE_CHARS: number;
export function loadSamples(set: "fit" | "heldout", root?: URL): Sample[];
export function splitIntoSamples(
  text: string,
  min?: number,
  max?: number,
): string[];
