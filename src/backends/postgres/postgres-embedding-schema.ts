/**
 * The embedding tables of PostgreSQL and the hook that feeds the queue: created on first use of
 * embeddings (postgres-embeddings.ts; not a migration) and dropped by `manager.removeEmbeddings()`.
 */
import type { PostgresExecutor, PostgresQueryable } from "./postgres-client.js";

/**
 * Turns embeddings off on the database (`manager.removeEmbeddings()`): drops the hook function
 * with its triggers, the queue and the vectors in one transaction (under the lock that creating
 * them takes), and says how many rows went.
 */
export async function removePostgresEmbeddings(
  db: PostgresExecutor,
): Promise<{ vectors: number; queued: number }> {
  const removed = { vectors: 0, queued: 0 };
  const work = async (tx: PostgresQueryable) => {
    await tx.query(
      `SELECT pg_advisory_xact_lock(hashtext('arbor_embeddings'))`,
    );
    const [tables] = await tx.query<{ v: unknown; q: unknown }>(
      `SELECT to_regclass('arbor_embeddings') AS v, to_regclass('arbor_embedding_queue') AS q`,
    );
    const count = async (table: string) =>
      Number(
        (
          await tx.query<{ n: unknown }>(`SELECT COUNT(*) AS n FROM ${table}`)
        )[0]?.n ?? 0,
      );
    if (tables?.v) removed.vectors = await count("arbor_embeddings");
    if (tables?.q) removed.queued = await count("arbor_embedding_queue");
    // CASCADE drops the triggers that call the hook.
    await tx.query(`DROP FUNCTION IF EXISTS arbor_embedding_hook() CASCADE`);
    await tx.query(`DROP TABLE IF EXISTS arbor_embedding_queue`);
    await tx.query(`DROP TABLE IF EXISTS arbor_embeddings`);
  };
  await (db.supportsTransactions ? db.transaction(work) : work(db));
  return removed;
}

/** The tables, the hook function and its triggers, all idempotent. */
export const EMBEDDING_DDL = [
  `CREATE TABLE IF NOT EXISTS arbor_embedding_queue (
    session_id TEXT NOT NULL, kind TEXT NOT NULL, item_id TEXT NOT NULL,
    gen BIGINT NOT NULL DEFAULT 1, attempts INTEGER NOT NULL DEFAULT 0,
    next_at BIGINT NOT NULL DEFAULT 0, queued_at BIGSERIAL,
    PRIMARY KEY (session_id, kind, item_id)
  )`,
  `CREATE TABLE IF NOT EXISTS arbor_embeddings (
    session_id TEXT NOT NULL, kind TEXT NOT NULL, item_id TEXT NOT NULL,
    model TEXT NOT NULL, dimensions INTEGER NOT NULL, vector REAL[] NOT NULL,
    PRIMARY KEY (session_id, kind, item_id)
  )`,
  `CREATE OR REPLACE FUNCTION arbor_embedding_hook() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP <> 'INSERT' THEN
      DELETE FROM arbor_embeddings WHERE session_id = OLD.session_id
        AND kind = TG_ARGV[0] AND item_id = OLD.id;
    END IF;
    IF TG_OP = 'DELETE' THEN
      DELETE FROM arbor_embedding_queue WHERE session_id = OLD.session_id
        AND kind = TG_ARGV[0] AND item_id = OLD.id;
      RETURN OLD;
    END IF;
    -- A random first generation: a message erased and written again under its id never
    -- matches the generation a worker claimed before the erase.
    INSERT INTO arbor_embedding_queue (session_id, kind, item_id, gen)
    VALUES (NEW.session_id, TG_ARGV[0], NEW.id, (floor(random() * 4503599627370496) + 1)::bigint)
    ON CONFLICT (session_id, kind, item_id) DO UPDATE
      SET gen = arbor_embedding_queue.gen + 1, attempts = 0, next_at = 0;
    RETURN NEW;
  END $$`,
  `CREATE OR REPLACE TRIGGER arbor_embed_message_write
    AFTER INSERT OR DELETE ON assistant_messages
    FOR EACH ROW EXECUTE FUNCTION arbor_embedding_hook('message')`,
  `CREATE OR REPLACE TRIGGER arbor_embed_message_update
    AFTER UPDATE OF content ON assistant_messages FOR EACH ROW
    WHEN (OLD.content IS DISTINCT FROM NEW.content)
    EXECUTE FUNCTION arbor_embedding_hook('message')`,
  `CREATE OR REPLACE TRIGGER arbor_embed_summary_write
    AFTER INSERT OR DELETE ON assistant_compactions
    FOR EACH ROW EXECUTE FUNCTION arbor_embedding_hook('summary')`,
];
