// Test-only helpers for the PostgreSQL runners: a throwaway database per test file, created from
// ARBOR_TEST_PG_URL and dropped afterwards. Without the variable the runners skip with a visible
// reason, except under CI=true, where a missing URL or server fails the run.
import pg from "pg";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  applyPostgresSchema,
  PostgresSessionProvider,
} from "../../src/backends/postgres/index.js";
import type {
  PostgresClient,
  PostgresConnection,
} from "../../src/backends/postgres/postgres-client.js";
import { numberPlaceholders } from "../../src/backends/postgres/postgres-executor.js";
import {
  runProviderConformance,
  type ProviderCapabilities,
} from "../../src/testing/index.js";

/** The server URL, or `undefined` when Postgres tests are not configured. */
export const PG_URL = process.env.ARBOR_TEST_PG_URL || undefined;

/** Why the Postgres tests do not run here, or `null` when they do. */
export const PG_SKIP_REASON = PG_URL
  ? null
  : "ARBOR_TEST_PG_URL is not set (e.g. postgres://postgres@127.0.0.1:5432/postgres)";

/** True when a missing server must fail the run instead of skipping. */
export const PG_REQUIRED = process.env.CI === "true";

/** Every table Arbor's schema creates, except `arbor_meta` (emptied between cases). */
export const ARBOR_TABLES = [
  "assistant_messages",
  "assistant_compactions",
  "cf_agents_context_blocks",
  "cf_agents_search_entries",
  "assistant_config",
  "assistant_sessions",
  "arbor_block_history",
  "arbor_attachment_refs",
  "arbor_attachment_chunks",
  "arbor_attachments",
];

export interface TestDatabase {
  readonly name: string;
  readonly url: string;
  /** A pool over the database (closed by `drop()`). */
  readonly pool: pg.Pool;
  /** A new connected `pg.Client` (closed by `drop()`). */
  client(): Promise<pg.Client>;
  /** A new postgres.js `sql` instance (ended by `drop()`, so vitest can exit). */
  postgresJs(): postgres.Sql;
  /** Empties every Arbor table, keeping the schema. */
  truncate(): Promise<void>;
  /** Closes every connection and drops the database. */
  drop(): Promise<void>;
}

/**
 * Creates a database with a random name on the server of `ARBOR_TEST_PG_URL`, applies Arbor's
 * schema (unless `schema: false`) and returns it.
 */
export async function createTestDatabase(
  options: {
    schema?: boolean;
    textSearchConfig?: string;
    poolSize?: number;
  } = {},
): Promise<TestDatabase> {
  if (!PG_URL) throw new Error(`[test] ${PG_SKIP_REASON}`);
  const name = `arbor_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  await admin(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8'`);
  const url = databaseUrl(name);
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 12,
  });
  // DROP DATABASE … WITH (FORCE) ends connections a closing pool may still hold.
  pool.on("error", () => undefined);
  const clients: pg.Client[] = [];
  const postgresJsInstances: postgres.Sql[] = [];
  if (options.schema !== false) {
    await applyPostgresSchema(
      pool,
      options.textSearchConfig
        ? { textSearchConfig: options.textSearchConfig }
        : {},
    );
  }
  return {
    name,
    url,
    pool,
    async client() {
      const client = new pg.Client({ connectionString: url });
      client.on("error", () => undefined);
      await client.connect();
      clients.push(client);
      return client;
    },
    postgresJs() {
      const sql = postgres(url, { max: 8, onnotice: () => undefined });
      postgresJsInstances.push(sql);
      return sql;
    },
    async truncate() {
      await pool.query(`TRUNCATE ${ARBOR_TABLES.join(", ")} RESTART IDENTITY`);
    },
    async drop() {
      await Promise.allSettled(clients.map((client) => client.end()));
      await Promise.allSettled(
        postgresJsInstances.map((sql) => sql.end({ timeout: 5 })),
      );
      await pool.end();
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/**
 * A Hyperdrive-style connection over a `pg` Pool: `?` placeholders, one statement per call, each
 * call on whichever pooled connection is free (no transaction can span two calls).
 */
export function executeConnection(pool: pg.Pool): PostgresConnection {
  return {
    execute: async (query, args = []) =>
      pool.query(args.length > 0 ? numberPlaceholders(query) : query, args),
  };
}

/**
 * The `execute`-style adapter over postgres.js exactly as docs/postgres.md prints it ("Hyperdrive
 * on Workers"): keep the two in step, the test proves the documented code works.
 */
export function documentedPostgresJsConnection(
  sql: postgres.Sql,
): PostgresConnection {
  const connection = {
    execute: async (query: string, args: unknown[] = []) => {
      let n = 0;
      const rows = await sql.unsafe(
        query.replace(/\?/g, () => `$${++n}`),
        args as never[],
      );
      return { rows: [...rows] };
    },
  };
  return connection;
}

// --- Internal helpers ---

function databaseUrl(name: string): string {
  const url = new URL(PG_URL!);
  url.pathname = `/${name}`;
  return url.toString();
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * Registers `fn` when Postgres tests run here; otherwise one skipped case naming the reason, or,
 * under CI=true, one failing case (a missing server never passes silently).
 */
export function describePostgres(name: string, fn: () => void): void {
  if (PG_SKIP_REASON === null) {
    fn();
    return;
  }
  describe(name, () => {
    if (PG_REQUIRED)
      it("needs PostgreSQL under CI=true", () => {
        throw new Error(`[test] ${PG_SKIP_REASON}`);
      });
    else it.skip(`skipped: ${PG_SKIP_REASON}`, () => undefined);
  });
}

/**
 * The provider conformance suite on a throwaway database, over the connection `connect` makes
 * (a Pool, a single Client, or an `execute`-style wrapper).
 */
export function runPostgresConformance(options: {
  name: string;
  connect: (database: TestDatabase) => PostgresClient | Promise<PostgresClient>;
  textSearchConfig?: string;
  capabilities?: Partial<ProviderCapabilities>;
}): void {
  describePostgres(options.name, () => {
    let database: TestDatabase | undefined;
    let client: PostgresClient;
    runProviderConformance(
      {
        name: options.name,
        capabilities: options.capabilities,
        beforeAll: async () => {
          database = await createTestDatabase(
            options.textSearchConfig
              ? { textSearchConfig: options.textSearchConfig }
              : {},
          );
          client = await options.connect(database);
        },
        afterAll: () => database?.drop(),
        create: async () => {
          await database!.truncate();
          return {
            session: (sessionId) =>
              new PostgresSessionProvider(client, sessionId),
          };
        },
      },
      { describe, it, expect, beforeAll, afterAll },
    );
  });
}
