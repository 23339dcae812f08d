/**
 * A `sql` store's `BackendEmbeddings`, shared by its providers and its backend. The embedding
 * code loads on first use: a Durable Object that never embeds does not carry it.
 */
import type { BackendEmbeddings } from "../../session/contracts/embedding-store.js";
import type { SqlProvider } from "../../session/contracts/sql-provider.js";

/** The embeddings of a `sql` store. */
export function sqlEmbeddings(agent: SqlProvider): BackendEmbeddings {
  let access = accesses.get(agent);
  if (!access) {
    access = createAccess(agent);
    accesses.set(agent, access);
  }
  return access;
}

// --- Internal helpers ---

const accesses = new WeakMap<SqlProvider, BackendEmbeddings>();

function createAccess(agent: SqlProvider): BackendEmbeddings {
  const code = () => import("./sql-embeddings.js");
  return {
    open: async () => new (await code()).SqlEmbeddingStore(agent),
    exists: async () => {
      const [row] = agent.sql<{ n: number }>`
        SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'arbor_embeddings'`;
      return Number(row?.n ?? 0) > 0;
    },
    count: async (sessionId, itemIds) =>
      (await code()).countSqlEmbeddings(agent, sessionId, itemIds),
    erase: async (sessionId, itemIds) =>
      (await code()).eraseSqlEmbeddings(agent, sessionId, itemIds),
    remove: async () =>
      (await import("./sql-embedding-schema.js")).removeSqlEmbeddings(agent),
  };
}
