/**
 * The `BackendEmbeddings` of a PostgreSQL database, shared by its providers and its backend: a small
 * stand-in whose code (postgres-backend-embeddings.ts) loads on first call, so a session that never
 * embeds does not carry it.
 */
import { lazyEmbeddings } from "../../session/state/lazy-embeddings.js";
import type { BackendEmbeddings } from "../../session/contracts/embedding-store.js";
import type { PostgresClient } from "./postgres-client.js";

/** The embeddings of the store. */
export function postgresEmbeddings(client: PostgresClient): BackendEmbeddings {
  return lazyEmbeddings(client, async () =>
    (await import("./postgres-backend-embeddings.js")).createPostgresEmbeddings(
      client,
    ),
  );
}
