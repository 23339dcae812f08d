/**
 * A PostgreSQL client's `BackendEmbeddings`, shared by its providers and its backend. The
 * embedding code loads on first use.
 */
import type { BackendEmbeddings } from "../../session/contracts/embedding-store.js";
import type { PostgresClient } from "./postgres-client.js";

/** The embeddings of the database behind `client`. */
export function postgresEmbeddings(client: PostgresClient): BackendEmbeddings {
  let access = accesses.get(client);
  if (!access) {
    access = createAccess(client);
    accesses.set(client, access);
  }
  return access;
}

// --- Internal helpers ---

const accesses = new WeakMap<PostgresClient, BackendEmbeddings>();

function createAccess(client: PostgresClient): BackendEmbeddings {
  const code = async () => {
    const [module, { postgresExecutor }] = await Promise.all([
      import("./postgres-embeddings.js"),
      import("./postgres-executor.js"),
    ]);
    return { module, db: postgresExecutor(client) };
  };
  return {
    open: async () => new (await code()).module.PostgresEmbeddingStore(client),
    exists: async () => {
      const { db } = await code();
      const [row] = await db.query<{ t: unknown }>(
        `SELECT to_regclass('arbor_embeddings') AS t`,
      );
      return Boolean(row?.t);
    },
    count: async (sessionId, itemIds) => {
      const { module, db } = await code();
      return module.countPostgresEmbeddings(db, sessionId, itemIds);
    },
    erase: async (sessionId, itemIds) => {
      const { module, db } = await code();
      await module.erasePostgresEmbeddings(db, sessionId, itemIds);
    },
    remove: async () => {
      const [{ removePostgresEmbeddings }, { db }] = await Promise.all([
        import("./postgres-embedding-schema.js"),
        code(),
      ]);
      return removePostgresEmbeddings(db);
    },
  };
}
