/**
 * The HTTP API over a SessionManager, on Hono, with its OpenAPI document, API keys and tenants
 * (docs/server.md). Loads in workerd: no Node built-ins.
 *
 * @example
 * ```ts
 * import { serve } from "@hono/node-server";
 * import { SessionManager } from "arbor-memory/session";
 * import { createApp, SqlApiKeyStore } from "arbor-memory/server";
 * import { openSqlite } from "arbor-memory/sqlite";
 *
 * const db = openSqlite("arbor.db");
 * const app = createApp({ manager: SessionManager.create(db), auth: new SqlApiKeyStore(db) });
 * serve({ fetch: app.fetch, port: 4820, hostname: "127.0.0.1" });
 * ```
 *
 * @module arbor-memory/server
 */
export { createApp, DEFAULT_BODY_LIMIT, type CreateAppOptions } from "./app.js";
export type { ServerEnv, SessionView } from "./context.js";
export type { McpEndpoint } from "./mcp-endpoint.js";
export type { ErrorLogger } from "./errors.js";
export {
  STATUS_BY_CODE,
  type ErrorBody,
  type ServerErrorCode,
} from "./status-by-code.js";
export {
  API_KEY_PREFIX,
  generateApiKey,
  hashApiKey,
  TableApiKeyStore,
} from "../session/keys/api-keys.js";
export type {
  ApiKeyRecord,
  ApiKeyStore,
  ApiKeyTable,
  KeyVerifier,
} from "../session/contracts/api-keys.js";
// The key stores are each backend's (`Backend.apiKeys`); exported here under their names.
export {
  InMemoryApiKeyStore,
  /** @deprecated The old name of `InMemoryApiKeyStore` (one name per backend: `InMemory*`). */
  InMemoryApiKeyStore as MemoryApiKeyStore,
} from "../backends/memory/memory-api-keys.js";
export { SqlApiKeyStore } from "../backends/sql/sql-api-keys.js";
export {
  PostgresApiKeyStore,
  POSTGRES_API_KEYS_SQL,
} from "../backends/postgres/postgres-api-keys.js";
