/**
 * Vectors and the embedding queue on PostgreSQL, created on first use of embeddings (not a
 * migration). A trigger on the message and overlay tables enqueues in the writing statement's
 * own transaction and drops the vector of a changed or deleted row. Vectors are `real[]`, stored
 * normalized, so their dot product with the query is the cosine. The ranking runs in the database:
 * with pgvector's inner product `<#>` when the `vector` extension is installed in the database,
 * otherwise over `unnest`. Both are exact and score alike (a zero vector scores 0; pgvector's
 * cosine `<=>` would say NaN, which PostgreSQL sorts above every number).
 */
import type {
  EmbeddingCounts,
  EmbeddingStore,
  NearestQuery,
  QueueItem,
  VectorHit,
} from "../../session/contracts/embedding-store.js";
import {
  decodeMessage,
  searchableText,
} from "../../session/messages/message-codec.js";
import type {
  PostgresClient,
  PostgresExecutor,
  PostgresQueryable,
} from "./postgres-client.js";
import { postgresExecutor } from "./postgres-executor.js";
import { EMBEDDING_DDL } from "./postgres-embedding-schema.js";
import { postgresSettings } from "./postgres-settings.js";

/** The embedding tables of one PostgreSQL client. */
export class PostgresEmbeddingStore implements EmbeddingStore {
  engine = "exact";
  readonly #db: PostgresExecutor;
  #ready: Promise<void> | null = null;
  /** The quoted schema of the `vector` extension, once found (it may be off the search path). */
  #vectorSchema = "";

  constructor(client: PostgresClient) {
    this.#db = postgresExecutor(client);
  }

  async prepare(model: string): Promise<void> {
    this.#ready ??= this.#createTables();
    await this.#ready;
    await this.#db.query(
      `INSERT INTO arbor_embedding_queue (session_id, kind, item_id, gen)
       SELECT m.session_id, 'message', m.id, (floor(random() * 4503599627370496) + 1)::bigint FROM assistant_messages AS m
       WHERE NOT EXISTS (SELECT 1 FROM arbor_embeddings AS e WHERE e.session_id = m.session_id
         AND e.kind = 'message' AND e.item_id = m.id AND e.model = ?)
       ON CONFLICT DO NOTHING`,
      [model],
    );
    await this.#db.query(
      `INSERT INTO arbor_embedding_queue (session_id, kind, item_id, gen)
       SELECT c.session_id, 'summary', c.id, (floor(random() * 4503599627370496) + 1)::bigint FROM assistant_compactions AS c
       WHERE NOT EXISTS (SELECT 1 FROM arbor_embeddings AS e WHERE e.session_id = c.session_id
         AND e.kind = 'summary' AND e.item_id = c.id AND e.model = ?)
       ON CONFLICT DO NOTHING`,
      [model],
    );
  }

  async claim(
    limit: number,
    now: number,
    leaseUntil: number,
  ): Promise<QueueItem[]> {
    // One statement picks and leases the rows; rows another claim holds locked are skipped, and
    // one it already leased fails the re-checked `next_at`, so two workers never share an item.
    const rows = await this.#db.query<QueueRow & { queued_at: unknown }>(
      `UPDATE arbor_embedding_queue AS q SET next_at = ?
       FROM (SELECT session_id, kind, item_id FROM arbor_embedding_queue
         WHERE next_at <= ? ORDER BY queued_at LIMIT ? FOR UPDATE SKIP LOCKED) AS due
       WHERE q.session_id = due.session_id AND q.kind = due.kind AND q.item_id = due.item_id
       RETURNING q.session_id, q.kind, q.item_id, q.gen, q.attempts, q.queued_at`,
      [leaseUntil, now, limit],
    );
    return rows
      .sort((a, b) => Number(a.queued_at) - Number(b.queued_at))
      .map((row) => ({
        sessionId: row.session_id,
        kind: row.kind === "summary" ? "summary" : "message",
        itemId: row.item_id,
        gen: Number(row.gen),
        attempts: Number(row.attempts),
      }));
  }

  async texts(items: readonly QueueItem[]): Promise<Array<string | null>> {
    const out: Array<string | null> = [];
    for (const item of items) {
      if (item.kind === "summary") {
        const [row] = await this.#db.query<{ summary: string }>(
          `SELECT summary FROM assistant_compactions WHERE id = ? AND session_id = ?`,
          [item.itemId, item.sessionId],
        );
        out.push(row && row.summary.length > 0 ? row.summary : null);
        continue;
      }
      const [row] = await this.#db.query<{ content: string }>(
        `SELECT content FROM assistant_messages WHERE session_id = ? AND id = ?`,
        [item.sessionId, item.itemId],
      );
      const message = row ? decodeMessage(row.content) : null;
      const text = message ? searchableText(message) : "";
      out.push(text.length > 0 ? text : null);
    }
    return out;
  }

  async complete(
    done: ReadonlyArray<{ item: QueueItem; vector: Float32Array }>,
    gone: readonly QueueItem[],
    model: string,
  ): Promise<void> {
    await this.#atomically(async (db) => {
      for (const { item, vector } of done) {
        await db.query(
          `INSERT INTO arbor_embeddings (session_id, kind, item_id, model, dimensions, vector)
           SELECT ?, ?, ?, ?, ?, ?::real[]
           WHERE EXISTS (SELECT 1 FROM arbor_embedding_queue WHERE session_id = ? AND kind = ?
             AND item_id = ? AND gen = ?)
           ON CONFLICT (session_id, kind, item_id) DO UPDATE SET model = excluded.model,
             dimensions = excluded.dimensions, vector = excluded.vector`,
          [
            item.sessionId,
            item.kind,
            item.itemId,
            model,
            vector.length,
            arrayLiteral(vector),
            ...key(item),
          ],
        );
      }
      for (const item of [...done.map((d) => d.item), ...gone]) {
        await db.query(
          `DELETE FROM arbor_embedding_queue WHERE session_id = ? AND kind = ? AND item_id = ? AND gen = ?`,
          key(item),
        );
      }
    });
  }

  async fail(items: readonly QueueItem[], nextAt: number): Promise<void> {
    for (const item of items) {
      await this.#db.query(
        `UPDATE arbor_embedding_queue SET attempts = attempts + 1, next_at = ?
         WHERE session_id = ? AND kind = ? AND item_id = ? AND gen = ?`,
        [nextAt, ...key(item)],
      );
    }
  }

  async pending(sessionId?: string): Promise<number> {
    const [row] = await this.#db.query<{ n: unknown }>(
      `SELECT COUNT(*) AS n FROM arbor_embedding_queue WHERE ?::text IS NULL OR session_id = ?`,
      [sessionId ?? null, sessionId ?? null],
    );
    return Number(row?.n ?? 0);
  }

  async nextDue(): Promise<number | null> {
    const [row] = await this.#db.query<{ at: unknown }>(
      `SELECT MIN(next_at) AS at FROM arbor_embedding_queue`,
    );
    return row?.at === null || row?.at === undefined ? null : Number(row.at);
  }

  async nearest(
    query: Float32Array,
    options: NearestQuery,
  ): Promise<VectorHit[]> {
    const v = this.#vectorSchema;
    const score =
      this.engine === "pgvector"
        ? `-(vector::${v}.vector OPERATOR(${v}.<#>) ?::real[]::${v}.vector)`
        : `(SELECT SUM(a * b) FROM unnest(vector, ?::real[]) AS t(a, b))`;
    // Filters are written only when given, so the primary key serves a session filter.
    const where = ["model = ?", "dimensions = ?"];
    const params: unknown[] = [
      arrayLiteral(query),
      options.model,
      query.length,
    ];
    if (options.sessionIds !== null) {
      where.push("session_id = ANY (?::text[])");
      params.push(textArray(options.sessionIds));
    }
    if (options.itemIds !== undefined) {
      where.push("item_id = ANY (?::text[])");
      params.push(textArray(options.itemIds));
    }
    params.push(options.limit);
    const rows = await this.#db.query<{
      session_id: string;
      kind: string;
      item_id: string;
      score: unknown;
    }>(
      `SELECT session_id, kind, item_id, ${score} AS score FROM arbor_embeddings
       WHERE ${where.join(" AND ")} ORDER BY score DESC LIMIT ?`,
      params,
    );
    return rows.map((row) => ({
      sessionId: row.session_id,
      kind: row.kind === "summary" ? "summary" : "message",
      itemId: row.item_id,
      score: Number(row.score),
    }));
  }

  async erase(
    sessionId: string,
    itemIds: readonly string[] | null,
  ): Promise<void> {
    await erasePostgresEmbeddings(this.#db, sessionId, itemIds);
  }

  async count(sessionId: string): Promise<EmbeddingCounts> {
    const [row] = await this.#db.query<{ n: unknown }>(
      `SELECT COUNT(*) AS n FROM arbor_embeddings WHERE session_id = ?`,
      [sessionId],
    );
    const models = await this.#db.query<{ model: string }>(
      `SELECT DISTINCT model FROM arbor_embeddings WHERE session_id = ? ORDER BY model`,
      [sessionId],
    );
    return {
      vectors: Number(row?.n ?? 0),
      queued: await this.pending(sessionId),
      models: models.map((m) => m.model),
    };
  }

  async #createTables(): Promise<void> {
    await postgresSettings(this.#db);
    await this.#atomically(async (db) => {
      // One creator at a time: concurrent CREATE OR REPLACE of one function can conflict.
      await db.query(
        `SELECT pg_advisory_xact_lock(hashtext('arbor_embeddings'))`,
      );
      for (const statement of EMBEDDING_DDL) await db.query(statement);
    });
    const [vector] = await this.#db.query<{ schema: string }>(
      `SELECT quote_ident(n.nspname) AS schema FROM pg_extension AS e
       JOIN pg_namespace AS n ON n.oid = e.extnamespace WHERE e.extname = 'vector'`,
    );
    if (vector) {
      this.#vectorSchema = vector.schema;
      this.engine = "pgvector";
    }
  }

  #atomically(work: (db: PostgresQueryable) => Promise<void>): Promise<void> {
    return this.#db.supportsTransactions
      ? this.#db.transaction(work)
      : work(this.#db);
  }
}

/** How many vectors and queued items `erasePostgresEmbeddings()` with these arguments would remove. */
export async function countPostgresEmbeddings(
  db: PostgresQueryable,
  sessionId: string,
  itemIds: readonly string[] | null,
): Promise<{ vectors: number; queued: number }> {
  const [exists] = await db.query<{ t: unknown }>(
    `SELECT to_regclass('arbor_embeddings') AS t`,
  );
  if (!exists?.t) return { vectors: 0, queued: 0 };
  const ids = itemIds === null ? null : textArray(itemIds);
  const counts: number[] = [];
  for (const table of ["arbor_embeddings", "arbor_embedding_queue"]) {
    const [row] = await db.query<{ n: unknown }>(
      `SELECT COUNT(*) AS n FROM ${table} WHERE session_id = ? AND (?::text IS NULL OR item_id = ANY (?::text[]))`,
      [sessionId, ids === null ? null : "1", ids ?? "{}"],
    );
    counts.push(Number(row?.n ?? 0));
  }
  return { vectors: counts[0]!, queued: counts[1]! };
}

/** Removes vectors and queue rows of these items (all of the session for `null`), when the tables exist. */
export async function erasePostgresEmbeddings(
  db: PostgresQueryable,
  sessionId: string,
  itemIds: readonly string[] | null,
): Promise<void> {
  const [exists] = await db.query<{ t: unknown }>(
    `SELECT to_regclass('arbor_embeddings') AS t`,
  );
  if (!exists?.t) return;
  const ids = itemIds === null ? null : textArray(itemIds);
  for (const table of ["arbor_embeddings", "arbor_embedding_queue"]) {
    await db.query(
      `DELETE FROM ${table} WHERE session_id = ? AND (?::text IS NULL OR item_id = ANY (?::text[]))`,
      [sessionId, ids === null ? null : "1", ids ?? "{}"],
    );
  }
}

// --- Internal helpers ---

interface QueueRow {
  session_id: string;
  kind: string;
  item_id: string;
  gen: unknown;
  attempts: unknown;
}

function key(item: QueueItem): unknown[] {
  return [item.sessionId, item.kind, item.itemId, item.gen];
}

/** A `real[]` literal: the same text for every driver. */
function arrayLiteral(vector: Float32Array): string {
  return `{${Array.from(vector).join(",")}}`;
}

/** A `text[]` literal with every element quoted. */
function textArray(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`).join(",")}}`;
}
