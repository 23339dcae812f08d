// PostgreSQL's recent-history window (postgres-path.ts loadRecentPath): read from the leaf upward
// as far as the budget needs, with the path's total in the same statement; the same window as the
// one chosen on the whole path, over pg and postgres.js, and only the window's rows travel.
import { afterAll, beforeAll, expect, it } from "vitest";
import { PostgresSessionProvider } from "../../src/postgres/index.js";
import type { PostgresClient } from "../../src/backends/postgres/postgres-client.js";
import {
  createTestDatabase,
  describePostgres,
  type TestDatabase,
} from "./postgres-database.js";
import { checkRecentWindowsAgainstWholePath } from "./support/recent-window-cases.js";

describePostgres("PostgreSQL's recent-history window", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.drop());

  const connections: Array<[string, () => PostgresClient]> = [
    ["pg", () => database.pool],
    ["postgres.js", () => database.postgresJs()],
  ];
  let sessions = 0;
  for (const [name, connect] of connections) {
    it(`is the window of the whole path, overlays, floors and truncation included, on random trees (${name})`, async () => {
      const client = connect();
      await checkRecentWindowsAgainstWholePath(
        () => ({
          provider: new PostgresSessionProvider(client, `s${sessions++}`),
          close: () => undefined,
        }),
        25,
      );
    }, 120_000);
  }

  it("brings the window's rows to the client, not the whole path's", async () => {
    const chain = 3_000;
    await database.pool.query(
      `INSERT INTO assistant_messages (id, session_id, parent_id, role, content, text_content, created_at)
      SELECT 'm' || i, 'long', CASE WHEN i = 1 THEN NULL ELSE 'm' || (i - 1) END, 'user',
        '{"id":"m' || i || '","role":"user","parts":[{"type":"text","text":"' || repeat('x', 100) || '"}]}',
        'x', clock_timestamp()
      FROM generate_series(1, ${chain}) AS i`,
    );
    let rows = 0;
    const counting = {
      query: async (text: string, values: unknown[] = []) => {
        const answer = await database.pool.query(text, values);
        rows += answer.rows.length;
        return answer;
      },
    };
    const provider = new PostgresSessionProvider(counting, "long");
    const recent = await provider.getRecentHistory(`m${chain}`, 2_000, 1);
    expect(recent.truncated).toBe(true);
    expect(recent.messages.at(-1)?.id).toBe(`m${chain}`);
    expect(recent.messages.length).toBeGreaterThan(5);
    expect(recent.messages.length).toBeLessThan(20);
    const stats = await provider.getHistoryRowStats(`m${chain}`);
    expect(recent.totalContentBytes).toBe(
      stats.reduce((sum, row) => sum + row.bytes, 0),
    );
    rows = 0;
    await provider.getRecentHistory(`m${chain}`, 2_000, 1);
    expect(rows).toBeLessThan(100);
  });
});
