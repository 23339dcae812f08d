import { mapSqlErrors } from "./sql-errors.js";
import type { SearchProvider } from "../../session/contracts/context-provider.js";
import {
  analyzeQuery,
  fts5Expressions,
  rarestTerms,
} from "../../session/text/query-analysis.js";
import { spaceCjk } from "../../session/text/search-terms.js";
import type { SqlProvider } from "../../session/contracts/sql-provider.js";
import { createSearchEntryTables } from "./sql-ddl.js";
import { ensureAgentSchema } from "./sql-schema.js";
import { nowIso } from "../../session/state/now-iso.js";
import { atomically } from "./sql-transaction.js";

const MAX_RESULTS = 10;

/**
 * Searchable knowledge over SQLite FTS5 (docs/behavior/context-blocks.md), with the query rules of message
 * search (docs/behavior/search.md): ranked any-term, entries holding every term that counts first,
 * then those holding some, each group by FTS5 `bm25()`, ties newest first; stop words and question
 * words dropped (`analyzeQuery`), Porter stemming, irregular verbs widened, operators literal,
 * CJK words matched inside sentences. Entries are isolated by block label: every session using a
 * block with this label sees them.
 */
export class AgentSearchProvider implements SearchProvider {
  private label = "";

  constructor(private readonly agent: SqlProvider) {}

  init(label: string): void {
    this.label = label;
  }

  async get(): Promise<string | null> {
    this.ensureTables();
    const [row] = this.agent.sql<{ count: number }>`
      SELECT COUNT(*) AS count FROM cf_agents_search_entries WHERE label = ${this.label}`;
    const count = Number(row?.count ?? 0);
    return count > 0 ? `${count} entries indexed.` : null;
  }

  async search(query: string): Promise<string | null> {
    // FTS5 reads a query only up to a NUL character, so a NUL separates terms like a space.
    const analyzed = analyzeQuery(
      typeof query === "string" ? query.replaceAll("\u0000", " ") : query,
    );
    if (analyzed === null) return null;
    const { all, any } = fts5Expressions(rarestTerms(analyzed).analyzed);
    try {
      this.ensureTables();
      // Entries of one label are few next to messages, so every match is ranked (no window).
      // Every-term matches are told apart by a second MATCH, evaluated once for the statement.
      const rows = this.agent.sql<{ key: string; content: string }>`
        SELECT e.key AS key, e.content AS content
        FROM cf_agents_search_fts AS f CROSS JOIN cf_agents_search_entries AS e ON e.seq = f.rowid
        WHERE cf_agents_search_fts MATCH ${any ?? all} AND e.label = ${this.label}
        ORDER BY (${any} IS NULL OR f.rowid IN (SELECT rowid FROM cf_agents_search_fts
            WHERE cf_agents_search_fts MATCH ${all})) DESC,
          f.rank, f.rowid DESC
        LIMIT ${MAX_RESULTS}`;
      if (rows.length === 0) return null;
      return rows.map((row) => `[${row.key}]\n${row.content}`).join("\n\n");
    } catch {
      return null;
    }
  }

  async set(key: string, content: string): Promise<void> {
    this.ensureTables();
    atomically(this.agent, () => {
      const now = nowIso();
      this.agent
        .sql`INSERT INTO cf_agents_search_entries (label, key, content, created_at, updated_at)
        VALUES (${this.label}, ${key}, ${content}, ${now}, ${now})
        ON CONFLICT (label, key) DO UPDATE SET content = excluded.content, updated_at = excluded.updated_at`;
      const [entry] = this.agent.sql<{ seq: number }>`
        SELECT seq FROM cf_agents_search_entries WHERE label = ${this.label} AND key = ${key}`;
      this.agent
        .sql`DELETE FROM cf_agents_search_fts WHERE rowid = ${entry!.seq}`;
      this.agent
        .sql`INSERT INTO cf_agents_search_fts (rowid, label, key, content)
        VALUES (${entry!.seq}, ${this.label}, ${key}, ${spaceCjk(content)})`;
    });
  }

  /** Removes an entry and its index row (Arbor extension). */
  async delete(key: string): Promise<void> {
    this.ensureTables();
    atomically(this.agent, () => {
      const [entry] = this.agent.sql<{ seq: number }>`
        SELECT seq FROM cf_agents_search_entries WHERE label = ${this.label} AND key = ${key}`;
      if (!entry) return;
      this.agent
        .sql`DELETE FROM cf_agents_search_fts WHERE rowid = ${entry.seq}`;
      this.agent
        .sql`DELETE FROM cf_agents_search_entries WHERE seq = ${entry.seq}`;
    });
  }

  // --- Internal helpers ---

  private ensureTables(): void {
    // The message-store schema migrates a reference database's entries in place first.
    ensureAgentSchema(this.agent);
    createSearchEntryTables(this.agent);
  }
}

// What leaves a method is Arbor's error, the store's own as its cause (sql-errors.ts).
mapSqlErrors(AgentSearchProvider.prototype);
