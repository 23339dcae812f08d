/**
 * Erase's embedding step (manager/erase.ts): the vectors and queued embeddings of the erased
 * messages and overlays. On the sql and PostgreSQL stores the triggers of the embedding tables
 * already drop them in the erase's own write; this step removes whatever a trigger cannot know
 * (queue rows of items that were never stored, a whole session's rows) and covers the in-memory
 * store, whose maps are not in its write.
 */
import type { StoreEraseResult, StoreEraseTarget } from "../contracts/erase.js";
import { existingEmbeddingStore } from "../embeddings/embedding-stores.js";
import { MemoryEmbeddingStore } from "../../backends/memory/memory-embeddings.js";
import {
  countPostgresEmbeddings,
  erasePostgresEmbeddings,
} from "../../backends/postgres/postgres-embeddings.js";
import { postgresExecutor } from "../../backends/postgres/postgres-executor.js";
import {
  countSqlEmbeddings,
  eraseSqlEmbeddings,
} from "../../backends/sql/sql-embeddings.js";
import type { ManagerStorage } from "./manager-backend.js";

/** Removes the embedding rows of an erased target (after the store's own erase). */
export async function eraseEmbeddings(
  storage: ManagerStorage,
  target: StoreEraseTarget,
  result: StoreEraseResult,
): Promise<void> {
  const ids =
    target.messageIds === null
      ? null
      : [...target.messageIds, ...result.overlayIds];
  switch (storage.kind) {
    case "memory":
      await (
        await existingEmbeddingStore(storage.store)
      )?.erase(target.sessionId, ids);
      return;
    case "sql":
      eraseSqlEmbeddings(storage.agent, target.sessionId, ids);
      return;
    case "postgres":
      await erasePostgresEmbeddings(
        postgresExecutor(storage.client),
        target.sessionId,
        ids,
      );
  }
}

/** How many vectors and queued embeddings erasing the target (with these overlays) removes. */
export async function countEmbeddings(
  storage: ManagerStorage,
  target: StoreEraseTarget,
  overlayIds: readonly string[],
): Promise<{ vectors: number; queued: number }> {
  const ids =
    target.messageIds === null ? null : [...target.messageIds, ...overlayIds];
  switch (storage.kind) {
    case "memory": {
      const store = await existingEmbeddingStore(storage.store);
      return store instanceof MemoryEmbeddingStore
        ? store.countErasable(target.sessionId, ids)
        : { vectors: 0, queued: 0 };
    }
    case "sql":
      return countSqlEmbeddings(storage.agent, target.sessionId, ids);
    case "postgres":
      return countPostgresEmbeddings(
        postgresExecutor(storage.client),
        target.sessionId,
        ids,
      );
  }
}

/** Whether the store has ever used embeddings (their tables exist, or a memory index is open). */
export async function hasEmbeddings(storage: ManagerStorage): Promise<boolean> {
  switch (storage.kind) {
    case "memory":
      return existingEmbeddingStore(storage.store) !== undefined;
    case "sql": {
      const [row] = storage.agent.sql<{ n: number }>`
        SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'arbor_embeddings'`;
      return Number(row?.n ?? 0) > 0;
    }
    case "postgres": {
      const [row] = await postgresExecutor(storage.client).query<{
        t: unknown;
      }>(`SELECT to_regclass('arbor_embeddings') AS t`);
      return Boolean(row?.t);
    }
  }
}
