/**
 * Vectors and the embedding queue of a `sql` store (SQLite through openSqlite, Durable Objects).
 * The tables and triggers (sql-embedding-schema.ts) are created on first use of embeddings, not
 * by a migration: a store that never embeds never has them. Triggers on the message and overlay tables enqueue in the
 * same write as the change itself, so a crash between an append and its embedding loses
 * nothing, and a deleted or updated message loses its vector in that write too.
 */
import { mapSqlErrors } from "./sql-errors.js";
import {
  decodeMessage,
  searchableText,
} from "../../session/messages/message-codec.js";
import type { SqlProvider } from "../../session/contracts/sql-provider.js";
import type {
  EmbeddingCounts,
  EmbeddingStore,
  NearestQuery,
  QueueItem,
  VectorHit,
} from "../../session/contracts/embedding-store.js";
import { dot, fromBytes, toBytes } from "../../session/encoding/vectors.js";
import { ensureAgentSchema } from "./sql-schema.js";
import { atomically } from "./sql-transaction.js";
import { createEmbeddingTables, hasSqliteVec } from "./sql-embedding-schema.js";
import {
  withWholeContent,
  type StoredContentRow,
} from "./sql-message-chunks.js";

/** The embedding tables of one `sql` store; ranks with sqlite-vec when the connection has it. */
export class SqlEmbeddingStore implements EmbeddingStore {
  readonly engine: string;

  constructor(private readonly agent: SqlProvider) {
    ensureAgentSchema(agent);
    createEmbeddingTables(agent);
    this.engine = hasSqliteVec(agent) ? "sqlite-vec" : "exact";
  }

  async prepare(model: string): Promise<void> {
    const { agent } = this;
    atomically(agent, () => {
      agent.sql`INSERT INTO arbor_embedding_queue (session_id, kind, item_id, gen)
        SELECT m.session_id, 'message', m.id, abs(random() % 4503599627370496) + 1 FROM assistant_messages AS m
        WHERE NOT EXISTS (SELECT 1 FROM arbor_embeddings AS e WHERE e.session_id = m.session_id
          AND e.kind = 'message' AND e.item_id = m.id AND e.model = ${model})
        ON CONFLICT DO NOTHING`;
      agent.sql`INSERT INTO arbor_embedding_queue (session_id, kind, item_id, gen)
        SELECT c.session_id, 'summary', c.id, abs(random() % 4503599627370496) + 1 FROM assistant_compactions AS c
        WHERE NOT EXISTS (SELECT 1 FROM arbor_embeddings AS e WHERE e.session_id = c.session_id
          AND e.kind = 'summary' AND e.item_id = c.id AND e.model = ${model})
        ON CONFLICT DO NOTHING`;
    });
  }

  async claim(
    limit: number,
    now: number,
    leaseUntil: number,
  ): Promise<QueueItem[]> {
    // One statement: the rows are picked and leased under SQLite's write lock, so a second
    // connection (another process, another manager) never claims them too.
    const rows = this.agent.sql<QueueRow & { rowid: number }>`
      UPDATE arbor_embedding_queue SET next_at = ${leaseUntil}
      WHERE rowid IN (SELECT rowid FROM arbor_embedding_queue WHERE next_at <= ${now}
        ORDER BY rowid LIMIT ${limit})
      RETURNING rowid, session_id, kind, item_id, gen, attempts`;
    return rows.sort((a, b) => Number(a.rowid) - Number(b.rowid)).map(toItem);
  }

  async texts(items: readonly QueueItem[]): Promise<Array<string | null>> {
    return items.map((item) => {
      if (item.kind === "summary") {
        const [row] = this.agent.sql<{ summary: string }>`
          SELECT summary FROM assistant_compactions WHERE id = ${item.itemId}
            AND session_id = ${item.sessionId}`;
        return row && row.summary.length > 0 ? row.summary : null;
      }
      const rows = this.agent.sql<StoredContentRow>`
        SELECT seq, content, chunked_bytes FROM assistant_messages
        WHERE session_id = ${item.sessionId} AND id = ${item.itemId}`;
      const [row] = withWholeContent(this.agent, rows);
      const message = row ? decodeMessage(row.content) : null;
      const text = message ? searchableText(message) : "";
      return text.length > 0 ? text : null;
    });
  }

  async complete(
    done: ReadonlyArray<{ item: QueueItem; vector: Float32Array }>,
    gone: readonly QueueItem[],
    model: string,
  ): Promise<void> {
    const { agent } = this;
    atomically(agent, () => {
      for (const { item, vector } of done) {
        const { sessionId, kind, itemId, gen } = item;
        agent.sql`INSERT INTO arbor_embeddings (session_id, kind, item_id, model, dimensions, vector)
          SELECT ${sessionId}, ${kind}, ${itemId}, ${model}, ${vector.length}, ${toBytes(vector)}
          WHERE EXISTS (SELECT 1 FROM arbor_embedding_queue WHERE session_id = ${sessionId}
            AND kind = ${kind} AND item_id = ${itemId} AND gen = ${gen})
          ON CONFLICT (session_id, kind, item_id) DO UPDATE SET model = excluded.model,
            dimensions = excluded.dimensions, vector = excluded.vector`;
      }
      for (const { item } of done) dequeue(agent, item);
      for (const item of gone) dequeue(agent, item);
    });
  }

  async fail(items: readonly QueueItem[], nextAt: number): Promise<void> {
    const { agent } = this;
    atomically(agent, () => {
      for (const item of items) {
        agent.sql`UPDATE arbor_embedding_queue SET attempts = attempts + 1, next_at = ${nextAt}
          WHERE session_id = ${item.sessionId} AND kind = ${item.kind}
            AND item_id = ${item.itemId} AND gen = ${item.gen}`;
      }
    });
  }

  async pending(sessionId?: string): Promise<number> {
    const [row] =
      sessionId === undefined
        ? this.agent.sql<{
            n: number;
          }>`SELECT COUNT(*) AS n FROM arbor_embedding_queue`
        : this.agent.sql<{ n: number }>`
            SELECT COUNT(*) AS n FROM arbor_embedding_queue WHERE session_id = ${sessionId}`;
    return Number(row?.n ?? 0);
  }

  async nextDue(): Promise<number | null> {
    const [row] = this.agent.sql<{ at: number | null }>`
      SELECT MIN(next_at) AS at FROM arbor_embedding_queue`;
    return row?.at === null || row?.at === undefined ? null : Number(row.at);
  }

  async nearest(
    query: Float32Array,
    options: NearestQuery,
  ): Promise<VectorHit[]> {
    // One query per session: each reads only its session's rows by the primary key.
    const sessions = options.sessionIds ?? [null];
    const hits = sessions.flatMap((sessionId) =>
      this.#nearestIn(query, options, sessionId),
    );
    return topK(hits, options.limit);
  }

  /** The nearest vectors of one session (`null`: of every session). */
  #nearestIn(
    query: Float32Array,
    options: NearestQuery,
    sessionId: string | null,
  ): VectorHit[] {
    const { agent } = this;
    const { model, limit } = options;
    const items =
      options.itemIds === undefined ? null : JSON.stringify(options.itemIds);
    const size = query.length;
    if (this.engine === "sqlite-vec") {
      const bytes = toBytes(query);
      const rows =
        sessionId === null
          ? agent.sql<HitRow & { score: number }>`
              SELECT session_id, kind, item_id, 1 - vec_distance_cosine(vector, ${bytes}) AS score
              FROM arbor_embeddings WHERE model = ${model} AND dimensions = ${size}
                AND (${items} IS NULL OR item_id IN (SELECT value FROM json_each(${items})))
              ORDER BY score DESC LIMIT ${limit}`
          : agent.sql<HitRow & { score: number }>`
              SELECT session_id, kind, item_id, 1 - vec_distance_cosine(vector, ${bytes}) AS score
              FROM arbor_embeddings WHERE session_id = ${sessionId}
                AND model = ${model} AND dimensions = ${size}
                AND (${items} IS NULL OR item_id IN (SELECT value FROM json_each(${items})))
              ORDER BY score DESC LIMIT ${limit}`;
      return rows.map((row) => ({ ...toHit(row), score: Number(row.score) }));
    }
    const rows =
      sessionId === null
        ? agent.sql<HitRow & { vector: unknown }>`
            SELECT session_id, kind, item_id, vector FROM arbor_embeddings
            WHERE model = ${model} AND dimensions = ${size}
              AND (${items} IS NULL OR item_id IN (SELECT value FROM json_each(${items})))`
        : agent.sql<HitRow & { vector: unknown }>`
            SELECT session_id, kind, item_id, vector FROM arbor_embeddings
            WHERE session_id = ${sessionId} AND model = ${model} AND dimensions = ${size}
              AND (${items} IS NULL OR item_id IN (SELECT value FROM json_each(${items})))`;
    return topK(
      rows.map((row) => ({
        ...toHit(row),
        score: dot(query, fromBytes(row.vector)),
      })),
      limit,
    );
  }

  async erase(
    sessionId: string,
    itemIds: readonly string[] | null,
  ): Promise<void> {
    eraseSqlEmbeddings(this.agent, sessionId, itemIds);
  }

  async count(sessionId: string): Promise<EmbeddingCounts> {
    const [row] = this.agent.sql<{ n: number }>`
      SELECT COUNT(*) AS n FROM arbor_embeddings WHERE session_id = ${sessionId}`;
    const models = this.agent.sql<{ model: string }>`
      SELECT DISTINCT model FROM arbor_embeddings WHERE session_id = ${sessionId} ORDER BY model`;
    return {
      vectors: Number(row?.n ?? 0),
      queued: await this.pending(sessionId),
      models: models.map((m) => m.model),
    };
  }
}

/**
 * Removes the vectors and queue rows of these items (all of the session for `null`). Called by
 * erase (manager/erase.ts) when the tables exist; a store without them has nothing to remove.
 */
export function eraseSqlEmbeddings(
  agent: SqlProvider,
  sessionId: string,
  itemIds: readonly string[] | null,
): void {
  const [exists] = agent.sql<{ n: number }>`
    SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'arbor_embeddings'`;
  if (!exists || Number(exists.n) === 0) return;
  const ids = itemIds === null ? null : JSON.stringify(itemIds);
  atomically(agent, () => {
    agent.sql`DELETE FROM arbor_embeddings WHERE session_id = ${sessionId}
      AND (${ids} IS NULL OR item_id IN (SELECT value FROM json_each(${ids})))`;
    agent.sql`DELETE FROM arbor_embedding_queue WHERE session_id = ${sessionId}
      AND (${ids} IS NULL OR item_id IN (SELECT value FROM json_each(${ids})))`;
  });
}

/** How many vectors and queued items `eraseSqlEmbeddings()` with these arguments would remove. */
export function countSqlEmbeddings(
  agent: SqlProvider,
  sessionId: string,
  itemIds: readonly string[] | null,
): { vectors: number; queued: number } {
  const [exists] = agent.sql<{ n: number }>`
    SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'arbor_embeddings'`;
  if (!exists || Number(exists.n) === 0) return { vectors: 0, queued: 0 };
  const ids = itemIds === null ? null : JSON.stringify(itemIds);
  const [vectors] = agent.sql<{ n: number }>`
    SELECT COUNT(*) AS n FROM arbor_embeddings WHERE session_id = ${sessionId}
      AND (${ids} IS NULL OR item_id IN (SELECT value FROM json_each(${ids})))`;
  const [queued] = agent.sql<{ n: number }>`
    SELECT COUNT(*) AS n FROM arbor_embedding_queue WHERE session_id = ${sessionId}
      AND (${ids} IS NULL OR item_id IN (SELECT value FROM json_each(${ids})))`;
  return { vectors: Number(vectors?.n ?? 0), queued: Number(queued?.n ?? 0) };
}

/** The best `limit` hits, best first. */
export function topK(hits: VectorHit[], limit: number): VectorHit[] {
  return hits.sort((a, b) => b.score - a.score).slice(0, limit);
}

// --- Internal helpers ---

interface HitRow {
  session_id: string;
  kind: string;
  item_id: string;
}

interface QueueRow extends HitRow {
  gen: number;
  attempts: number;
}

function toItem(row: QueueRow): QueueItem {
  return {
    sessionId: row.session_id,
    kind: row.kind === "summary" ? "summary" : "message",
    itemId: row.item_id,
    gen: Number(row.gen),
    attempts: Number(row.attempts),
  };
}

function toHit(row: HitRow): Omit<VectorHit, "score"> {
  return {
    sessionId: row.session_id,
    kind: row.kind === "summary" ? "summary" : "message",
    itemId: row.item_id,
  };
}

function dequeue(agent: SqlProvider, item: QueueItem): void {
  agent.sql`DELETE FROM arbor_embedding_queue WHERE session_id = ${item.sessionId}
    AND kind = ${item.kind} AND item_id = ${item.itemId} AND gen = ${item.gen}`;
}

// What leaves a method is Arbor's error, the store's own as its cause (sql-errors.ts).
mapSqlErrors(SqlEmbeddingStore.prototype);
