/**
 * A PostgreSQL database's `BackendEmbeddings`, loaded on first use through
 * `postgresEmbeddings()` (postgres-embedding-access.ts).
 */
import type { BackendEmbeddings } from "../../session/contracts/embedding-store.js";
import type { PostgresClient } from "./postgres-client.js";
import { removePostgresEmbeddings } from "./postgres-embedding-schema.js";
import {
  countPostgresEmbeddings,
  erasePostgresEmbeddings,
  PostgresEmbeddingStore,
} from "./postgres-embeddings.js";
import { postgresExecutor } from "./postgres-executor.js";

/** The embeddings of the database behind one client. */
export function createPostgresEmbeddings(
  client: PostgresClient,
): BackendEmbeddings {
  const db = postgresExecutor(client);
  return {
    open: async () => new PostgresEmbeddingStore(client),
    exists: async () => {
      const [row] = await db.query<{ t: unknown }>(
        `SELECT to_regclass('arbor_embeddings') AS t`,
      );
      return Boolean(row?.t);
    },
    count: async (sessionId, itemIds) =>
      countPostgresEmbeddings(db, sessionId, itemIds),
    erase: async (sessionId, itemIds) =>
      erasePostgresEmbeddings(db, sessionId, itemIds),
    remove: async () => removePostgresEmbeddings(db),
  };
}
