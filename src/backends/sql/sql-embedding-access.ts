/**
 * The `BackendEmbeddings` of a `sql` store, shared by its providers and its backend: a small
 * stand-in whose code (sql-backend-embeddings.ts) loads on first call, so a session that never
 * embeds does not carry it.
 */
import { lazyEmbeddings } from "../../session/state/lazy-embeddings.js";
import type { BackendEmbeddings } from "../../session/contracts/embedding-store.js";
import type { SqlProvider } from "../../session/contracts/sql-provider.js";

/** The embeddings of the store. */
export function sqlEmbeddings(agent: SqlProvider): BackendEmbeddings {
  return lazyEmbeddings(agent, async () =>
    (await import("./sql-backend-embeddings.js")).createSqlEmbeddings(agent),
  );
}
