// A Claude Code 2.x subagent file imported before its session, on PostgreSQL (ARBOR_TEST_PG_URL)
// through the pg and postgres.js drivers: the session that arrives second sets the subagent's
// `parent_session_id` through the registry's update.
import { postgresBackend } from "../../src/postgres/index.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  importConversations,
  parseConversations,
} from "../../src/formats/index.js";
import type { PostgresClient } from "../../src/backends/postgres/postgres-client.js";
import { SessionManager } from "../../src/session/index.js";
import {
  createTestDatabase,
  describePostgres,
  type TestDatabase,
} from "../providers/postgres-database.js";
import { fixture } from "./support.js";

const SESSION_FILE = "5b0e7c1d-3f2a-4c8e-9d61-0a7e4f2b9c35.jsonl";
const AGENT_FILE = "agent-a7c31f0.jsonl";

describePostgres("Claude Code subagent links on PostgreSQL", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.drop());

  const kinds: Array<[string, () => PostgresClient]> = [
    ["pg Pool", () => database.pool],
    ["postgres.js", () => database.postgresJs()],
  ];
  for (const [kind, client] of kinds) {
    it(`links the subagent imported first to its session (${kind})`, async () => {
      await database.truncate();
      const manager = SessionManager.create(postgresBackend(client()));
      const importFile = (name: string) =>
        importConversations(
          manager,
          parseConversations(fixture(`claude-code-2x/${name}`), {
            fileName: name,
          }),
        );
      const [sub] = await importFile(AGENT_FILE);
      const [main] = await importFile(SESSION_FILE);
      expect((await manager.get(sub!.id))!.parent_session_id).toBe(main!.id);
      expect((await manager.get(main!.id))!.parent_session_id).toBeNull();
    });
  }
});
