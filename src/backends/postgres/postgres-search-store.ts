import type { PostgresExecutor } from "./postgres-client.js";
import { matchSql, queryParams } from "./postgres-search.js";
import { indexText, searchTerms, tsquerySql } from "./postgres-search-text.js";
import { postgresSettings } from "./postgres-settings.js";
import { toCount } from "./postgres-sql.js";

/** Entries `search()` returns at most. */
const MAX_RESULTS = 10;

/** What `search()` answers when nothing matches (docs/behavior/storage.md, kept from the reference). */
export const NO_RESULTS = "No results found.";

/**
 * The queries behind `PostgresSearchProvider`, loaded on its first call (`postgres-lazy.ts`);
 * every method takes the provider's label.
 */
export class PostgresSearchStore {
  constructor(readonly db: PostgresExecutor) {}

  /** `"<n> entries indexed."`, or `null` when there are none. */
  async get(label: string): Promise<string | null> {
    await postgresSettings(this.db);
    const [row] = await this.db.query<{ count: string }>(
      "SELECT count(*) AS count FROM cf_agents_search_entries WHERE label = ?",
      [label],
    );
    const count = toCount(row?.count);
    return count > 0 ? `${count} entries indexed.` : null;
  }

  /**
   * The best 10 entries as `[<key>]\n<content>` joined by blank lines; `"No results found."` when
   * nothing matches; `null` for a blank query or any error (never throws).
   */
  async search(label: string, query: string): Promise<string | null> {
    if (typeof query !== "string" || query.trim() === "") return null;
    try {
      const { textSearchConfig } = await postgresSettings(this.db);
      const terms = searchTerms(query);
      if (terms.length === 0) return NO_RESULTS;
      const match = matchSql(terms, "e.search_text");
      const rows = await this.db.query<{ key: string; content: string }>(
        `WITH q AS (SELECT ${tsquerySql(terms, "?::regconfig")} AS query)
        SELECT e.key, e.content FROM cf_agents_search_entries AS e, q
        WHERE e.label = ? AND e.search_tsv @@ q.query${match.sql}
        ORDER BY ts_rank(e.search_tsv, q.query) DESC, e.updated_at DESC, e.key
        LIMIT ${MAX_RESULTS}`,
        [...queryParams(terms, textSearchConfig), label, ...match.params],
      );
      if (rows.length === 0) return NO_RESULTS;
      return rows.map((row) => `[${row.key}]\n${row.content}`).join("\n\n");
    } catch {
      return null;
    }
  }

  /** Upserts an entry and its search text. */
  async set(label: string, key: string, content: string): Promise<void> {
    await postgresSettings(this.db);
    await this.db.query(
      `INSERT INTO cf_agents_search_entries (label, key, content, search_text, created_at, updated_at)
      VALUES (?, ?, ?, ?, clock_timestamp(), clock_timestamp())
      ON CONFLICT (label, key) DO UPDATE SET content = EXCLUDED.content,
        search_text = EXCLUDED.search_text, updated_at = EXCLUDED.updated_at`,
      [label, key, content, indexText(content)],
    );
  }

  /** Removes an entry (Arbor extension). */
  async delete(label: string, key: string): Promise<void> {
    await postgresSettings(this.db);
    await this.db.query(
      "DELETE FROM cf_agents_search_entries WHERE label = ? AND key = ?",
      [label, key],
    );
  }
}
