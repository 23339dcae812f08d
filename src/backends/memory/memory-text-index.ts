import {
  foldText,
  hasCjk,
  wordTokens,
} from "../../session/text/search-terms.js";
import type { MemoryRow } from "./memory-row.js";

/** A row as the text index holds it: what the terms of a search are matched against. */
export interface IndexedRow {
  readonly row: MemoryRow;
  /**
   * The folded indexed text (`foldText`) when it holds a CJK character: CJK terms match as
   * substrings of it, and a text without one can hold no CJK term, so no other row keeps it.
   */
  readonly folded: string | null;
  /**
   * The distinct word tokens (folded, stemmed), each the string its posting is keyed by: a row
   * holds a dozen pointers rather than a map and a dozen strings of its own.
   */
  readonly tokens: readonly string[];
  /** How often `tokens[i]` occurs, or `null` when each occurs once. */
  readonly counts: readonly number[] | null;
  /** How many word tokens: the document length of BM25. */
  readonly length: number;
  /** The index holding it: a search over several sessions tells their rows apart by it. */
  readonly index: MemoryTextIndex;
}

/** What a text search reads: BM25's collection statistics and the postings. */
export interface TextCorpus {
  /** Rows with a non-empty indexed text: BM25's document count. */
  readonly documents: number;
  /** The word tokens of those rows, together. */
  readonly totalLength: number;
  /** The rows holding a word token, by ascending seq. */
  withToken(token: string): readonly IndexedRow[];
  /** The rows holding a word token that starts with `prefix`, once each, by ascending seq. */
  withTokenPrefix(prefix: string): readonly IndexedRow[];
  /** The rows whose folded text holds a CJK character, by ascending seq. */
  withCharacter(character: string): readonly IndexedRow[];
}

/**
 * The inverted index of one in-memory session (docs/behavior/search.md): word token → rows, CJK
 * character → rows, so a search reads only the postings of its terms instead of every row.
 *
 * The session's writes keep it current: a new or changed row waits in `pending` and is tokenized
 * by the next search (appends stay as cheap as they were without an index, and a session never
 * searched never pays for one); a changed or deleted row leaves the postings at once, under the
 * tokens it was indexed with. Postings stay sorted by seq, so the newest matches of a term are
 * its last ones.
 */
export class MemoryTextIndex implements TextCorpus {
  private readonly tokens = new Map<string, Posting>();
  private readonly characters = new Map<string, Posting>();
  private readonly entries = new Map<MemoryRow, IndexedRow>();
  private readonly pending = new Set<MemoryRow>();
  private tokenCount = 0;

  get documents(): number {
    return this.entries.size;
  }

  get totalLength(): number {
    return this.tokenCount;
  }

  /** Indexes `row`, a new row of the session, by the next search. */
  add(row: MemoryRow): void {
    this.pending.add(row);
  }

  /** Re-indexes `row`, whose indexed text has changed. */
  changed(row: MemoryRow): void {
    this.remove([row]);
    this.pending.add(row);
  }

  /** Forgets `rows`, deleted from the session. */
  remove(rows: Iterable<MemoryRow>): void {
    const doomed = new Set<IndexedRow>();
    const tokens = new Set<string>();
    const characters = new Set<string>();
    for (const row of rows) {
      this.pending.delete(row);
      const entry = this.entries.get(row);
      if (!entry) continue;
      this.entries.delete(row);
      this.tokenCount -= entry.length;
      doomed.add(entry);
      for (const token of entry.tokens) tokens.add(token);
      for (const character of cjkCharacters(entry.folded))
        characters.add(character);
    }
    for (const token of tokens) withdraw(this.tokens, token, doomed);
    for (const character of characters)
      withdraw(this.characters, character, doomed);
  }

  /** Forgets every row (the session's messages were cleared). */
  clear(): void {
    this.tokens.clear();
    this.characters.clear();
    this.entries.clear();
    this.pending.clear();
    this.tokenCount = 0;
  }

  /** The index with every write applied, for a search to read. */
  current(): TextCorpus {
    if (this.pending.size > 0) this.indexPending();
    return this;
  }

  withToken(token: string): readonly IndexedRow[] {
    return this.tokens.get(token)?.rows ?? [];
  }

  withCharacter(character: string): readonly IndexedRow[] {
    return this.characters.get(character)?.rows ?? [];
  }

  /**
   * A scan of every distinct token of the session (a prefix search is rare next to whole-word
   * ones, and a session holds thousands of distinct tokens, not millions), then a merge of the
   * postings found.
   */
  withTokenPrefix(prefix: string): readonly IndexedRow[] {
    const lists: Array<readonly IndexedRow[]> = [];
    for (const [token, posting] of this.tokens)
      if (token.startsWith(prefix)) lists.push(posting.rows);
    return mergedRows(lists);
  }

  // --- Internal helpers ---

  private indexPending(): void {
    const rows = [...this.pending].sort((a, b) => a.seq - b.seq);
    this.pending.clear();
    // Rows placed before the end of a posting (a changed row, an import of older rows) are
    // merged in once per posting at the end, so a large batch stays linear.
    const late = new Map<IndexedRow[], IndexedRow[]>();
    for (const row of rows) {
      const text = row.indexed ?? row.text;
      if (text.length > 0) this.indexRow(row, text, late);
    }
    for (const [posting, additions] of late) mergeInto(posting, additions);
  }

  private indexRow(
    row: MemoryRow,
    text: string,
    late: Map<IndexedRow[], IndexedRow[]>,
  ): void {
    const folded = foldText(text);
    const occurrences = new Map<string, number>();
    let length = 0;
    for (const token of wordTokens(folded)) {
      occurrences.set(token, (occurrences.get(token) ?? 0) + 1);
      length++;
    }
    // Arrays made by `map` are exactly as long as needed: one is kept per row.
    const postings = [...occurrences.keys()].map((token) =>
      postingOf(this.tokens, token),
    );
    const counts = postings.map((posting) => occurrences.get(posting.key)!);
    const entry: IndexedRow = {
      row,
      folded: hasCjk(folded) ? folded : null,
      tokens: postings.map((posting) => posting.key),
      counts: counts.some((count) => count > 1) ? counts : null,
      length,
      index: this,
    };
    this.entries.set(row, entry);
    this.tokenCount += length;
    for (const posting of postings) place(posting.rows, entry, late);
    for (const character of cjkCharacters(entry.folded))
      place(postingOf(this.characters, character).rows, entry, late);
  }
}

/**
 * Several sessions' indexes as one corpus (the registry's search): one BM25 over all their rows,
 * so term weights compare across sessions. Seqs are unique across a store, so merged postings
 * stay ordered by them.
 */
export function combinedCorpus(corpora: readonly TextCorpus[]): TextCorpus {
  if (corpora.length === 1) return corpora[0]!;
  const merged = (lists: Array<readonly IndexedRow[]>) =>
    lists.flat().sort((a, b) => a.row.seq - b.row.seq);
  return {
    documents: corpora.reduce((sum, corpus) => sum + corpus.documents, 0),
    totalLength: corpora.reduce((sum, corpus) => sum + corpus.totalLength, 0),
    withToken: (token) =>
      merged(corpora.map((corpus) => corpus.withToken(token))),
    withTokenPrefix: (prefix) =>
      merged(corpora.map((corpus) => corpus.withTokenPrefix(prefix))),
    withCharacter: (character) =>
      merged(corpora.map((corpus) => corpus.withCharacter(character))),
  };
}

/** How often `token` occurs in `entry` (0: not at all). */
export function occurrences(entry: IndexedRow, token: string): number {
  const at = entry.tokens.indexOf(token);
  return at === -1 ? 0 : (entry.counts?.[at] ?? 1);
}

/** How often tokens starting with `prefix` occur in `entry`, together (0: none). */
export function prefixOccurrences(entry: IndexedRow, prefix: string): number {
  let count = 0;
  entry.tokens.forEach((token, at) => {
    if (token.startsWith(prefix)) count += entry.counts?.[at] ?? 1;
  });
  return count;
}

/** The rows of any of `lists` (each by ascending seq), once each, by ascending seq. */
export function mergedRows(
  lists: ReadonlyArray<readonly IndexedRow[]>,
): readonly IndexedRow[] {
  if (lists.length === 1) return lists[0]!;
  const all = lists.flat().sort((a, b) => a.row.seq - b.row.seq);
  return all.filter((entry, at) => at === 0 || all[at - 1] !== entry);
}

/** The distinct CJK characters of a folded text (none for `null`, most rows: nothing allocated). */
export function cjkCharacters(folded: string | null): Iterable<string> {
  if (folded === null) return [];
  const found = new Set<string>();
  for (const character of folded) if (hasCjk(character)) found.add(character);
  return found;
}

// --- Internal helpers ---

/** Up to this many rows leave or join a posting one binary search each; more, in one pass. */
const ONE_BY_ONE = 8;

/** The rows holding a token or character, by ascending seq, with the key they are found by. */
interface Posting {
  readonly key: string;
  readonly rows: IndexedRow[];
}

function postingOf(postings: Map<string, Posting>, key: string): Posting {
  let posting = postings.get(key);
  if (!posting) {
    posting = { key, rows: [] };
    postings.set(key, posting);
  }
  return posting;
}

/** Appends `entry` when it is the newest of `posting`, else queues it in `late` for `mergeInto`. */
function place(
  posting: IndexedRow[],
  entry: IndexedRow,
  late: Map<IndexedRow[], IndexedRow[]>,
): void {
  const last = posting.at(-1);
  if (last === undefined || last.row.seq < entry.row.seq) posting.push(entry);
  else {
    const queued = late.get(posting);
    if (queued) queued.push(entry);
    else late.set(posting, [entry]);
  }
}

/** Merges `additions` (ascending seq) into `posting` in place, keeping it sorted. */
function mergeInto(posting: IndexedRow[], additions: IndexedRow[]): void {
  if (additions.length <= ONE_BY_ONE) {
    for (const entry of additions)
      posting.splice(lowerBound(posting, entry.row.seq), 0, entry);
    return;
  }
  let read = posting.length - 1;
  for (const entry of additions) posting.push(entry);
  // From the back, so each entry moves once and nothing older than the oldest addition moves.
  for (
    let write = posting.length - 1, add = additions.length - 1;
    add >= 0;
    write--
  ) {
    const held = read >= 0 ? posting[read]! : undefined;
    if (held !== undefined && held.row.seq > additions[add]!.row.seq) {
      posting[write] = held;
      read--;
    } else posting[write] = additions[add--]!;
  }
}

/**
 * Removes the rows of `doomed` the posting of `key` holds, and the posting when it is left empty.
 * A few rows are found by binary search (an update moves one row); more, in one pass.
 */
function withdraw(
  postings: Map<string, Posting>,
  key: string,
  doomed: ReadonlySet<IndexedRow>,
): void {
  const posting = postings.get(key)?.rows;
  if (!posting) return;
  if (doomed.size <= ONE_BY_ONE) {
    for (const entry of doomed) {
      const at = lowerBound(posting, entry.row.seq);
      if (posting[at] === entry) posting.splice(at, 1);
    }
  } else {
    let kept = 0;
    for (const entry of posting)
      if (!doomed.has(entry)) posting[kept++] = entry;
    posting.length = kept;
  }
  if (posting.length === 0) postings.delete(key);
}

/** The first position of `posting` whose seq is not below `seq`. */
function lowerBound(posting: readonly IndexedRow[], seq: number): number {
  let low = 0;
  let high = posting.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (posting[middle]!.row.seq < seq) low = middle + 1;
    else high = middle;
  }
  return low;
}
