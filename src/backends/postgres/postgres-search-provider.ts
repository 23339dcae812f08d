import type { SearchProvider } from "../../session/contracts/context-provider.js";
import { hasCjk } from "../../session/text/search-terms.js";
import type { PostgresClient, PostgresExecutor } from "./postgres-client.js";
import { postgresExecutor } from "./postgres-executor.js";
import {
  indexText,
  rankedTerms,
  type RankedTerm,
  type SearchTerm,
} from "./postgres-search-text.js";
import { postgresSettings } from "./postgres-settings.js";
import { toCount } from "./postgres-sql.js";

/**
 * Searchable knowledge in `cf_agents_search_entries` (docs/behavior/storage.md), with the query rules of
 * message search (docs/behavior/search.md): ranked any-term, entries holding every term first,
 * stop and question words dropped, the configuration's stemming, operators literal, CJK words
 * matched inside sentences.
 * Entries are isolated by block label only: every session using a block with this label sees
 * them.
 *
 * @example
 * ```ts
 * Session.create(new PostgresSessionProvider(pool, "chat-1"))
 *   .withContext("knowledge", { provider: new PostgresSearchProvider(pool) });
 * ```
 */
export class PostgresSearchProvider implements SearchProvider {
  readonly #db: PostgresExecutor;
  private label = "";

  constructor(client: PostgresClient) {
    this.#db = postgresExecutor(client);
  }

  /** Sets the label the entries are stored under (the block label). */
  init(label: string): void {
    this.label = label;
  }

  /** `"<n> entries indexed."`, or `null` when there are none. */
  async get(): Promise<string | null> {
    await postgresSettings(this.#db);
    const [row] = await this.#db.query<{ count: string }>(
      "SELECT count(*) AS count FROM cf_agents_search_entries WHERE label = ?",
      [this.label],
    );
    const count = toCount(row?.count);
    return count > 0 ? `${count} entries indexed.` : null;
  }

  /**
   * The best 10 entries as `[<key>]\n<content>` joined by blank lines; `"No results found."` when
   * nothing matches; `null` for a blank query or any error (never throws).
   */
  async search(query: string): Promise<string | null> {
    if (typeof query !== "string" || query.trim() === "") return null;
    try {
      const { textSearchConfig } = await postgresSettings(this.#db);
      const terms = rankedTerms(query);
      if (terms.length === 0) return NO_RESULTS;
      const statement = rankedEntryStatement(
        terms,
        textSearchConfig,
        this.label,
      );
      const rows = await this.#db.query<{ key: string; content: string }>(
        statement.sql,
        statement.params,
      );
      if (rows.length === 0) return NO_RESULTS;
      return rows.map((row) => `[${row.key}]\n${row.content}`).join("\n\n");
    } catch {
      return null;
    }
  }

  /** Upserts an entry and its search text. */
  async set(key: string, content: string): Promise<void> {
    await postgresSettings(this.#db);
    await this.#db.query(
      `INSERT INTO cf_agents_search_entries (label, key, content, search_text, created_at, updated_at)
      VALUES (?, ?, ?, ?, clock_timestamp(), clock_timestamp())
      ON CONFLICT (label, key) DO UPDATE SET content = EXCLUDED.content,
        search_text = EXCLUDED.search_text, updated_at = EXCLUDED.updated_at`,
      [this.label, key, content, indexText(content)],
    );
  }

  /** Removes an entry (Arbor extension). */
  async delete(key: string): Promise<void> {
    await postgresSettings(this.#db);
    await this.#db.query(
      "DELETE FROM cf_agents_search_entries WHERE label = ? AND key = ?",
      [this.label, key],
    );
  }
}

// --- Internal helpers ---

/** Entries `search()` returns at most. */
const MAX_RESULTS = 10;

/** What `search()` answers when nothing matches (docs/behavior/storage.md, kept from the reference). */
const NO_RESULTS = "No results found.";

/**
 * Ranked any-term search of one label's entries, as message search ranks
 * (docs/behavior/search.md): entries holding any term (one of its forms; a CJK form's runs
 * adjacent in the search text), those holding every term first, then by the sum over the terms
 * they hold of `ts_rank` weighted by the term's inverse document frequency among the matches,
 * ties most recently updated first. A label's entries are few next to messages, so every match
 * is ranked (no rank window).
 */
function rankedEntryStatement(
  terms: readonly RankedTerm[],
  config: string,
  label: string,
): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const bind = (value: unknown) => {
    params.push(value);
    return "?";
  };
  const formQuery = (form: SearchTerm) =>
    `${hasCjk(form.phrase) ? "plainto_tsquery" : "phraseto_tsquery"}(${bind(config)}::regconfig, ${bind(form.phrase)})`;
  const termQuery = (term: RankedTerm) =>
    `(${term.forms.map(formQuery).join(" || ")})`;
  const termHolds = (term: RankedTerm, at: number) =>
    term.forms.every((form) => form.substrings.length === 0)
      ? `e.search_tsv @@ queries.query_${at}`
      : `(${term.forms
          .map((form) =>
            [
              `e.search_tsv @@ ${formQuery(form)}`,
              ...form.substrings.map(
                (run) => `strpos(e.search_text, ${bind(run)}) > 0`,
              ),
            ].join(" AND "),
          )
          .map((condition) => `(${condition})`)
          .join(" OR ")})`;
  const querySql = terms
    .map((term, at) => `${termQuery(term)} AS query_${at}`)
    .join(", ");
  const holds = terms.map(
    (term, at) => `(${termHolds(term, at)})::int AS holds_${at}`,
  );
  const ranks = terms.map(
    (_, at) => `ts_rank(e.search_tsv, queries.query_${at}) AS rank_${at}`,
  );
  const anyQuery = terms.map((_, at) => `queries.query_${at}`).join(" || ");
  const labelSql = bind(label);
  const frequencies = terms.map(
    (_, at) => `(sum(holds_${at}) OVER ())::float8 AS frequency_${at}`,
  );
  const every = terms.map((_, at) => `holds_${at} = 1`).join(" AND ");
  const some = terms.map((_, at) => `holds_${at} = 1`).join(" OR ");
  const score = terms
    .map(
      (_, at) =>
        `holds_${at} * rank_${at} * ln(1 + (candidates - frequency_${at} + 0.5) / (frequency_${at} + 0.5))`,
    )
    .join(" + ");
  return {
    sql: `WITH queries AS MATERIALIZED (SELECT ${querySql}),
    scored AS (
      SELECT e.key, e.content, e.updated_at, ${holds.join(", ")}, ${ranks.join(", ")}
      FROM cf_agents_search_entries AS e CROSS JOIN queries
      WHERE e.label = ${labelSql} AND e.search_tsv @@ (${anyQuery})
    ),
    matched AS (SELECT * FROM scored WHERE ${some}),
    weighed AS (
      SELECT matched.*, (count(*) OVER ())::float8 AS candidates, ${frequencies.join(", ")}
      FROM matched
    )
    SELECT key, content FROM weighed
    ORDER BY (${every}) DESC, (${score}) DESC, updated_at DESC, key
    LIMIT ${MAX_RESULTS}`,
    params,
  };
}
