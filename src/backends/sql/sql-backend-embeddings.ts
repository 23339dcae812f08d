/**
 * A `sql` store's `BackendEmbeddings`, loaded on first use through `sqlEmbeddings()`
 * (sql-embedding-access.ts): a Durable Object that never embeds does not carry this code.
 */
import type { BackendEmbeddings } from "../../session/contracts/embedding-store.js";
import type { SqlProvider } from "../../session/contracts/sql-provider.js";
import { removeSqlEmbeddings } from "./sql-embedding-schema.js";
import { mapSqlErrors } from "./sql-errors.js";
import {
  countSqlEmbeddings,
  eraseSqlEmbeddings,
  SqlEmbeddingStore,
} from "./sql-embeddings.js";

/** The embeddings of one `sql` store. */
export function createSqlEmbeddings(agent: SqlProvider): BackendEmbeddings {
  return mapSqlErrors<BackendEmbeddings>({
    open: async () => new SqlEmbeddingStore(agent),
    exists: async () => {
      const [row] = agent.sql<{ n: number }>`
        SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'arbor_embeddings'`;
      return Number(row?.n ?? 0) > 0;
    },
    count: async (sessionId, itemIds) =>
      countSqlEmbeddings(agent, sessionId, itemIds),
    erase: async (sessionId, itemIds) =>
      eraseSqlEmbeddings(agent, sessionId, itemIds),
    remove: async () => removeSqlEmbeddings(agent),
  });
}
