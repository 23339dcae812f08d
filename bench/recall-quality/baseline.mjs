// The baseline beside Arbor: a plain SQLite FTS5 table over the same turns (porter tokenizer),
// queried with the OR of the query's words and ranked by FTS5's BM25. No stop words, no query
// rewriting: what a developer gets from FTS5 in a few lines.
import Database from "better-sqlite3";
import { words } from "./queries.mjs";

export function fts5Baseline() {
  const database = new Database(":memory:");
  database.exec(
    "CREATE VIRTUAL TABLE turns USING fts5(conversation UNINDEXED, id UNINDEXED, text, tokenize = 'porter unicode61')",
  );
  const insert = database.prepare(
    "INSERT INTO turns (conversation, id, text) VALUES (?, ?, ?)",
  );
  const search = database.prepare(
    "SELECT id FROM turns WHERE turns MATCH ? AND conversation = ? ORDER BY bm25(turns) LIMIT ?",
  );
  const searchAll = database.prepare(
    "SELECT id FROM turns WHERE turns MATCH ? ORDER BY bm25(turns) LIMIT ?",
  );
  return {
    add(conversation, turns) {
      database.transaction(() => {
        for (const turn of turns) insert.run(conversation, turn.id, turn.text);
      })();
    },
    /**
     * The ids of the best `limit` turns of `conversation` (of every conversation when `null`) for
     * the OR of the query's words.
     */
    search(conversation, query, limit) {
      const terms = [...new Set(words(query))].map(
        (word) => `"${word.replaceAll('"', '""')}"`,
      );
      if (terms.length === 0) return [];
      const rows =
        conversation === null
          ? searchAll.all(terms.join(" OR "), limit)
          : search.all(terms.join(" OR "), conversation, limit);
      return rows.map((row) => row.id);
    },
    close() {
      database.close();
    },
  };
}
