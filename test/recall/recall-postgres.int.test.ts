// Recall (test/recall/recall-scenarios.ts) on PostgreSQL (ARBOR_TEST_PG_URL), a throwaway
// database per client kind (a pg Pool and postgres.js) and per ranking: the exact dot product
// over `real[]`, and pgvector's `<#>` in a database where `CREATE EXTENSION vector` ran (with
// postgres.js in a schema off the search path). The restart is a new pool / postgres.js
// instance on the same database. Without pgvector on the server the pgvector runners skip with
// the reason, except under CI=true, where they fail.
import {
  postgresBackend,
  type PostgresClient,
} from "../../src/postgres/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SessionManager } from "../../src/session/index.js";
import { PostgresEmbeddingStore } from "../../src/backends/postgres/postgres-embeddings.js";
import pg from "pg";
import {
  createTestDatabase,
  describePostgres,
  PG_REQUIRED,
  PG_URL,
  type TestDatabase,
} from "../providers/postgres-database.js";
import { RECALL_SCENARIOS, type RecallBackend } from "./recall-scenarios.js";

const PGVECTOR_MISSING = PG_URL ? await pgvectorMissing(PG_URL) : null;

for (const engine of ["exact", "pgvector"] as const)
  for (const driver of ["pg", "postgres.js"] as const) {
    const name = `recall on PostgreSQL (${driver}, ${engine})`;
    if (engine === "pgvector" && PGVECTOR_MISSING !== null) {
      describe(name, () => {
        if (PG_REQUIRED)
          it("needs pgvector under CI=true", () => {
            throw new Error(`[test] ${PGVECTOR_MISSING}`);
          });
        else it.skip(`skipped: ${PGVECTOR_MISSING}`, () => undefined);
      });
      continue;
    }
    describePostgres(name, () => recallRunner(engine, driver));
  }

function recallRunner(
  engine: "exact" | "pgvector",
  driver: "pg" | "postgres.js",
): void {
  let database: TestDatabase | undefined;
  let client: PostgresClient | undefined;
  const extraPools: pg.Pool[] = [];
  beforeAll(async () => {
    database = await createTestDatabase();
    // With postgres.js the extension lives off the search path, as hosted services install it.
    if (engine === "pgvector" && driver === "pg")
      await database.pool.query("CREATE EXTENSION vector");
    if (engine === "pgvector" && driver === "postgres.js")
      await database.pool.query(
        `CREATE SCHEMA "Ext"; CREATE EXTENSION vector SCHEMA "Ext"`,
      );
    client = driver === "pg" ? database.pool : database.postgresJs();
  });
  afterAll(async () => {
    await Promise.allSettled(extraPools.map((pool) => pool.end()));
    await database?.drop();
  });
  const target = () => client!;
  const backend: RecallBackend = {
    manager: () => SessionManager.create(postgresBackend(target())),
    restart: () => {
      if (driver === "postgres.js")
        return SessionManager.create(postgresBackend(database!.postgresJs()));
      const pool = new pg.Pool({ connectionString: database!.url, max: 4 });
      pool.on("error", () => undefined);
      extraPools.push(pool);
      return SessionManager.create(postgresBackend(pool));
    },
    rows: async (sessionId) => {
      if ((await schema()).length === 0)
        return { vectors: 0, queued: 0, models: [] };
      const count = async (table: string) =>
        Number(
          (
            await database!.pool.query(
              `SELECT COUNT(*) AS n FROM ${table} WHERE session_id = $1`,
              [sessionId],
            )
          ).rows[0].n,
        );
      const models = await database!.pool.query(
        "SELECT DISTINCT model FROM arbor_embeddings WHERE session_id = $1 ORDER BY model",
        [sessionId],
      );
      return {
        vectors: await count("arbor_embeddings"),
        queued: await count("arbor_embedding_queue"),
        models: models.rows.map((row: { model: string }) => row.model),
      };
    },
    totals: async () => {
      const present = await schema();
      const count = async (table: string) =>
        present.includes(table)
          ? Number(
              (await database!.pool.query(`SELECT COUNT(*) AS n FROM ${table}`))
                .rows[0].n,
            )
          : 0;
      return {
        vectors: await count("arbor_embeddings"),
        queued: await count("arbor_embedding_queue"),
      };
    },
    schema,
  };
  /** The embedding tables, triggers and functions of the database, sorted. */
  async function schema(): Promise<string[]> {
    const { rows } = await database!.pool.query(
      `SELECT name FROM (
         SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema()
         UNION ALL SELECT tgname FROM pg_trigger WHERE NOT tgisinternal
         UNION ALL SELECT proname FROM pg_proc WHERE pronamespace = current_schema()::regnamespace
       ) AS objects WHERE name LIKE 'arbor\\_embed%' ORDER BY name`,
    );
    return rows.map((row: { name: string }) => row.name);
  }
  it(`ranks with the ${engine} engine`, async () => {
    const store = new PostgresEmbeddingStore(target());
    await store.prepare("probe");
    expect(store.engine).toBe(engine);
    const { rows } = await database!.pool.query("SHOW search_path");
    expect(rows[0].search_path).not.toContain("Ext");
  });
  for (const [name, scenario] of Object.entries(RECALL_SCENARIOS))
    it(name, () => scenario(backend), 60_000);
}

/** Why `CREATE EXTENSION vector` cannot run on this server, or `null` when it can. */
async function pgvectorMissing(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    const { rows } = await client.query(
      "SELECT 1 FROM pg_available_extensions WHERE name = 'vector'",
    );
    return rows.length > 0
      ? null
      : "pgvector is not installed on the server (.ci/run installs it)";
  } catch {
    return null; // no server: describePostgres reports that
  } finally {
    await client.end().catch(() => undefined);
  }
}
