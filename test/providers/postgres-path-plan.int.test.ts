// Regression: path reads on a table without statistics (a new database, or rows written faster
// than autovacuum analyzes them). The recursive step was a plain join, which the planner turned
// into a hash join over every row of the session at every step: 10,000 messages took over 10 s
// for one getHistory() (and timed the deep-path conformance case out). Each step is now one
// primary-key lookup.
import { afterAll, beforeAll, expect, it } from "vitest";
import { PostgresSessionProvider } from "../../src/session/index.js";
import {
  createTestDatabase,
  describePostgres,
  type TestDatabase,
} from "./postgres-database.js";

const LENGTH = 10_010;

describePostgres("PostgreSQL path reads without table statistics", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
    // No ANALYZE may run while the case reads: the plan must be good without statistics. Small
    // rows matter: with them the estimate is far enough off to pick the quadratic plan.
    await database.pool.query(
      "ALTER TABLE assistant_messages SET (autovacuum_enabled = false)",
    );
    await database.pool.query(
      `INSERT INTO assistant_messages (id, session_id, parent_id, role, content, text_content, created_at)
      SELECT 'm' || i, 'a', CASE WHEN i = 1 THEN NULL ELSE 'm' || (i - 1) END, 'user',
        '{"id":"m' || i || '","role":"user","parts":[]}', 'x', clock_timestamp()
      FROM generate_series(1, ${LENGTH}) AS i`,
    );
  });
  afterAll(() => database?.drop());

  it("walks a chain of 10,010 messages and the links of an overlay with one key lookup per step", async () => {
    // Record what Arbor sends (the real pool answers), then ask PostgreSQL for the plan of each
    // recursive statement: the step must be an index probe, never a join over the session's rows.
    const statements: Array<{ text: string; values: unknown[] }> = [];
    const recording = {
      query: (text: string, values: unknown[] = []) => {
        statements.push({ text, values });
        return database.pool.query(text, values);
      },
    };
    const provider = new PostgresSessionProvider(recording, "a");
    expect(await provider.getPathLength()).toBe(LENGTH);
    expect(await provider.getHistory()).toHaveLength(LENGTH);
    expect(await provider.getHistoryRowStats()).toHaveLength(LENGTH);
    // Deleting the overlay's end walks its range up to its start (loadAncestorLinks).
    await provider.addCompaction("sum", "m1", `m${LENGTH}`);
    await provider.deleteMessages([`m${LENGTH}`]);
    expect((await provider.getCompactions())[0]!.toMessageId).toBe(
      `m${LENGTH - 1}`,
    );

    const recursive = statements.filter(({ text }) =>
      /WITH RECURSIVE/i.test(text),
    );
    expect(recursive.length).toBeGreaterThanOrEqual(4);
    for (const { text, values } of recursive) {
      const { rows } = await database.pool.query(
        `EXPLAIN (FORMAT JSON) ${text}`,
        values,
      );
      const plan = (rows[0] as { "QUERY PLAN": unknown })["QUERY PLAN"];
      const nodes = planNodes(plan);
      const union = nodes.find(
        (node) => node["Node Type"] === "Recursive Union",
      );
      expect(union, text).toBeDefined();
      const steps = planNodes((union!.Plans as unknown[])[1]);
      expect(
        steps.map((node) => node["Node Type"]),
        text,
      ).not.toContain("Hash Join");
      expect(
        steps.some((node) => String(node["Node Type"]).startsWith("Index")),
        text,
      ).toBe(true);
    }
  });
});

function planNodes(value: unknown): Array<Record<string, unknown>> {
  const found: Array<Record<string, unknown>> = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (typeof node !== "object" || node === null) return;
    const record = node as Record<string, unknown>;
    if ("Node Type" in record) found.push(record);
    for (const child of Object.values(record)) visit(child);
  };
  visit(value);
  return found;
}
