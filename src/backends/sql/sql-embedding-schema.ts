/**
 * The embedding tables of a `sql` store and their triggers: created on first use of embeddings
 * (not by a migration, so a store that never embeds never has them) and dropped by
 * `manager.removeEmbeddings()`.
 */
import type { SqlProvider } from "../../session/contracts/sql-provider.js";
import { atomically } from "./sql-transaction.js";

/**
 * Turns embeddings off on the store (`manager.removeEmbeddings()`): drops the triggers, the
 * queue and the vectors in one transaction, and says how many rows went. A store that never
 * embedded has nothing to drop.
 */
export function removeSqlEmbeddings(agent: SqlProvider): {
  vectors: number;
  queued: number;
} {
  return atomically(agent, () => {
    const [exists] = agent.sql<{ n: number }>`
      SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'arbor_embeddings'`;
    const [queue] = agent.sql<{ n: number }>`
      SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'arbor_embedding_queue'`;
    const count = (present: boolean, read: () => Array<{ n: number }>) =>
      present ? Number(read()[0]?.n ?? 0) : 0;
    const removed = {
      vectors: count(
        Number(exists?.n ?? 0) > 0,
        () =>
          agent.sql<{ n: number }>`SELECT COUNT(*) AS n FROM arbor_embeddings`,
      ),
      queued: count(
        Number(queue?.n ?? 0) > 0,
        () =>
          agent.sql<{
            n: number;
          }>`SELECT COUNT(*) AS n FROM arbor_embedding_queue`,
      ),
    };
    dropEmbeddingTriggers(agent);
    agent.sql`DROP TABLE IF EXISTS arbor_embedding_queue`;
    agent.sql`DROP TABLE IF EXISTS arbor_embeddings`;
    return removed;
  });
}

/** Whether the connection has sqlite-vec loaded. */
export function hasSqliteVec(agent: SqlProvider): boolean {
  try {
    agent.sql`SELECT vec_version() AS v`;
    return true;
  } catch {
    return false;
  }
}

/**
 * The embedding tables and the triggers that keep them in step with the messages, all
 * `IF NOT EXISTS`, in one transaction. Vectors are float32 bytes, which sqlite-vec reads as they
 * are. A new queue row takes a random generation, so a message erased and written again under
 * its id never matches the generation a worker claimed before the erase; enqueueing triggers of
 * an older version (generation 1 for every new row) are replaced.
 */
export function createEmbeddingTables(agent: SqlProvider): void {
  atomically(agent, () => {
    const [old] = agent.sql<{ n: number }>`
      SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'trigger'
        AND name LIKE 'arbor_embed_%' AND sql LIKE '%INSERT INTO arbor_embedding_queue%'
        AND sql NOT LIKE '%random()%'`;
    if (Number(old?.n ?? 0) > 0) dropEmbeddingTriggers(agent);
    createEmbeddingSchema(agent);
  });
}

/** Drops every trigger of the embedding tables (`IF EXISTS`). */
function dropEmbeddingTriggers(agent: SqlProvider): void {
  agent.sql`DROP TRIGGER IF EXISTS arbor_embed_message_insert`;
  agent.sql`DROP TRIGGER IF EXISTS arbor_embed_message_update`;
  agent.sql`DROP TRIGGER IF EXISTS arbor_embed_message_delete`;
  agent.sql`DROP TRIGGER IF EXISTS arbor_embed_summary_insert`;
  agent.sql`DROP TRIGGER IF EXISTS arbor_embed_summary_delete`;
}

function createEmbeddingSchema(agent: SqlProvider): void {
  agent.sql`CREATE TABLE IF NOT EXISTS arbor_embedding_queue (
    session_id TEXT NOT NULL, kind TEXT NOT NULL, item_id TEXT NOT NULL,
    gen INTEGER NOT NULL DEFAULT 1, attempts INTEGER NOT NULL DEFAULT 0,
    next_at INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (session_id, kind, item_id)
  )`;
  agent.sql`CREATE TABLE IF NOT EXISTS arbor_embeddings (
    session_id TEXT NOT NULL, kind TEXT NOT NULL, item_id TEXT NOT NULL,
    model TEXT NOT NULL, dimensions INTEGER NOT NULL, vector BLOB NOT NULL,
    PRIMARY KEY (session_id, kind, item_id)
  )`;
  agent.sql`CREATE TRIGGER IF NOT EXISTS arbor_embed_message_insert
    AFTER INSERT ON assistant_messages BEGIN
      INSERT INTO arbor_embedding_queue (session_id, kind, item_id, gen)
      VALUES (NEW.session_id, 'message', NEW.id, abs(random() % 4503599627370496) + 1)
      ON CONFLICT DO UPDATE SET gen = gen + 1, attempts = 0, next_at = 0;
    END`;
  agent.sql`CREATE TRIGGER IF NOT EXISTS arbor_embed_message_update
    AFTER UPDATE OF content, chunked_bytes ON assistant_messages BEGIN
      DELETE FROM arbor_embeddings WHERE session_id = OLD.session_id
        AND kind = 'message' AND item_id = OLD.id;
      INSERT INTO arbor_embedding_queue (session_id, kind, item_id, gen)
      VALUES (NEW.session_id, 'message', NEW.id, abs(random() % 4503599627370496) + 1)
      ON CONFLICT DO UPDATE SET gen = gen + 1, attempts = 0, next_at = 0;
    END`;
  agent.sql`CREATE TRIGGER IF NOT EXISTS arbor_embed_message_delete
    AFTER DELETE ON assistant_messages BEGIN
      DELETE FROM arbor_embeddings WHERE session_id = OLD.session_id
        AND kind = 'message' AND item_id = OLD.id;
      DELETE FROM arbor_embedding_queue WHERE session_id = OLD.session_id
        AND kind = 'message' AND item_id = OLD.id;
    END`;
  agent.sql`CREATE TRIGGER IF NOT EXISTS arbor_embed_summary_insert
    AFTER INSERT ON assistant_compactions BEGIN
      INSERT INTO arbor_embedding_queue (session_id, kind, item_id, gen)
      VALUES (NEW.session_id, 'summary', NEW.id, abs(random() % 4503599627370496) + 1)
      ON CONFLICT DO UPDATE SET gen = gen + 1, attempts = 0, next_at = 0;
    END`;
  agent.sql`CREATE TRIGGER IF NOT EXISTS arbor_embed_summary_delete
    AFTER DELETE ON assistant_compactions BEGIN
      DELETE FROM arbor_embeddings WHERE session_id = OLD.session_id
        AND kind = 'summary' AND item_id = OLD.id;
      DELETE FROM arbor_embedding_queue WHERE session_id = OLD.session_id
        AND kind = 'summary' AND item_id = OLD.id;
    END`;
}
