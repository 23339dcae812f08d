import type { PostgresQueryable } from "./postgres-client.js";

/*
 * What the planner's statistics say about common words, so that ranked search need not count
 * them (docs/search.md#what-the-rank-windows-cost). Ranked any-term search counts each term's
 * matches up to a cap to find the rare ones (text/rare-terms.ts). Counting a rare term is cheap,
 * but counting a common one up to the cap reads that many heap rows: about 9 ms per word at
 * 1,000,000 messages, most of a question's search. `ANALYZE` (autovacuum) already keeps the most
 * common lexemes of `content_tsv` with their frequencies (`pg_stats.most_common_elems`): a term
 * whose lexeme is there, well above the cap, is common without counting, and its estimate stands
 * for its count in the ranking's term weights. Read once a minute per client; with no statistics
 * yet (a new or small table) every term is counted, as before.
 */

/** How long the statistics read is reused. */
const STATS_TTL_MS = 60_000;

/** A term counts as common without counting when its estimate is this many times the cap. */
const COMMON_MARGIN = 2;

/** The lexemes of `content_tsv` and their estimated number of messages. */
interface LexemeStats {
  readonly counts: ReadonlyMap<string, number>;
}

/**
 * The lexemes the statistics put in more than `COMMON_MARGIN × cap` messages, with their
 * estimated counts, as a JSON object (a statement's parameter); `"{}"` without statistics.
 */
export async function commonLexemesParam(
  db: PostgresQueryable & object,
  cap: number,
  now = Date.now(),
): Promise<string> {
  let entry = cache.get(db);
  if (!entry || now - entry.at > STATS_TTL_MS) {
    entry = { at: now, stats: readStats(db) };
    cache.set(db, entry);
    const current = entry;
    // A failed read (a role that cannot see pg_stats) means counting every term, as before.
    current.stats = current.stats.catch(() => ({ counts: new Map() }));
  }
  const { counts } = await entry.stats;
  const common: Record<string, number> = {};
  for (const [lexeme, count] of counts)
    if (count > COMMON_MARGIN * cap) common[lexeme] = Math.round(count);
  return JSON.stringify(common);
}

/**
 * A form's estimated count when it is one lexeme of `lexemes` (an SQL `jsonb` expression of
 * `commonLexemesParam`), else NULL, for its text-search configuration and phrase (two `?`): a
 * phrase of several lexemes may be rare though each is common, so only single lexemes are
 * decided this way.
 */
export function commonFormSql(lexemes: string): string {
  return `(SELECT (${lexemes} ->> form.l[1])::float8
    FROM (SELECT tsvector_to_array(to_tsvector(?::regconfig, ?)) AS l) AS form
    WHERE cardinality(form.l) = 1)`;
}

// --- Internal helpers ---

const cache = new WeakMap<
  object,
  { at: number; stats: Promise<LexemeStats> }
>();

async function readStats(db: PostgresQueryable): Promise<LexemeStats> {
  const [row] = await db.query<{
    elems: string | null;
    freqs: string | null;
    total: string | number | null;
  }>(
    `SELECT array_to_json(s.most_common_elems::text::text[])::text AS elems,
      array_to_json(s.most_common_elem_freqs)::text AS freqs, c.reltuples AS total
    FROM pg_class AS c
    JOIN pg_namespace AS n ON n.oid = c.relnamespace
    JOIN pg_stats AS s ON s.schemaname = n.nspname AND s.tablename = c.relname
      AND s.attname = 'content_tsv'
    WHERE c.oid = 'assistant_messages'::regclass`,
  );
  const counts = new Map<string, number>();
  if (!row?.elems || !row.freqs) return { counts };
  const elems = JSON.parse(row.elems) as string[];
  const freqs = JSON.parse(row.freqs) as number[];
  const total = Number(row.total ?? 0);
  // The frequencies are fractions of the rows, one per element (three summary values follow).
  elems.forEach((lexeme, at) => {
    const freq = freqs[at];
    if (typeof freq === "number" && total > 0) counts.set(lexeme, freq * total);
  });
  return { counts };
}
