/**
 * @module The SQLite message store over any `sql` tagged template (Durable Object `Agent`,
 * `openSqlite()`). Safe to load in workerd: it imports no Node module.
 */
export { AgentSessionProvider } from "./sql-session-provider.js";
export {
  applySqlSchema,
  inspectSqlSchema,
  type SqlSchemaState,
} from "./sql-schema-state.js";
