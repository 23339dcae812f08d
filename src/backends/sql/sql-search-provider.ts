import type { SearchProvider } from "../../session/contracts/context-provider.js";
import { spaceCjk, toFts5Query } from "../../session/core/search-terms.js";
import type { SqlProvider } from "../../session/contracts/sql-provider.js";
import { createSearchEntryTables } from "./sql-ddl.js";
import { ensureAgentSchema } from "./sql-schema.js";
import { atomically, nowIso } from "./sql-transaction.js";

const MAX_RESULTS = 10;

/**
 * Searchable knowledge over SQLite FTS5 (docs/behavior/context-blocks.md), with the multilingual matching of message
 * search: every term must match, operators are literal, CJK words match inside sentences.
 * Entries are isolated by block label: every session using a block with this label sees them.
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
    const match = toFts5Query(query);
    if (match === null) return null;
    try {
      this.ensureTables();
      const rows = this.agent.sql<{ key: string; content: string }>`
        SELECT e.key AS key, e.content AS content
        FROM cf_agents_search_fts AS f CROSS JOIN cf_agents_search_entries AS e ON e.seq = f.rowid
        WHERE cf_agents_search_fts MATCH ${match} AND e.label = ${this.label}
        ORDER BY f.rank, f.rowid DESC
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
