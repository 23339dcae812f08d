import { closeSync, mkdirSync, openSync, readSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { readModelEnv, type ConfiguredModels } from "../agent/model-config.js";
import { ArborError, SessionManager } from "../session/index.js";
import type { Backend, PgClientLike } from "../session/index.js";
import { postgresBackend } from "../postgres/index.js";
import {
  applySqliteSchema,
  inspectSqliteSchema,
  openSqlite,
  sqliteBackend,
  type SqliteSchemaState,
} from "../sqlite/index.js";
import { CliError } from "./errors.js";
import { errorReason } from "../session/errors/error-reason.js";
import type { ApiKeyStore } from "../server/index.js";

/** The block every CLI session gets: what the agent decides to remember. */
export const MEMORY_BLOCK = {
  label: "memory",
  description:
    "Facts the agent keeps across turns: the user's preferences, decisions and open tasks",
  maxTokens: 2000,
} as const;

/** The part of a `pg` Pool the CLI uses (declared here so no `pg` types leak into ours). */
export type PgPool = PgClientLike & { end(): Promise<void> };

/** The configured models and the compaction function that summarizes with the summary model. */
export type CliModels = ConfiguredModels & {
  compact: Parameters<SessionManager["onCompaction"]>[0];
};

/** Where the sessions live, chosen by `--db` / `--postgres` or the environment. */
export interface StoreLocation {
  kind: "sqlite" | "postgres";
  /** The SQLite file (absolute) or the PostgreSQL URL. */
  target: string;
}

/** An open store: the manager, the API keys beside it, the models from the environment. */
export interface CliStore {
  location: StoreLocation;
  manager: SessionManager;
  /** The API keys beside the sessions; the server code is loaded on first use. */
  keys(): Promise<ApiKeyStore>;
  /** The models of `ARBOR_BASE_URL`/`ARBOR_MODEL` and their compaction (when asked for), or `null`. */
  models: CliModels | null;
  close(): Promise<void>;
}

/** `--postgres` (or `DATABASE_URL`) wins over `--db` (or `ARBOR_DB`, then `./arbor.db`). */
export function storeLocation(
  options: { db?: string | undefined; postgres?: string | undefined },
  env: NodeJS.ProcessEnv = process.env,
): StoreLocation {
  if (options.postgres) return { kind: "postgres", target: options.postgres };
  if (options.db) return { kind: "sqlite", target: resolve(options.db) };
  if (env.DATABASE_URL) return { kind: "postgres", target: env.DATABASE_URL };
  return { kind: "sqlite", target: resolve(env.ARBOR_DB || "./arbor.db") };
}

/**
 * What a command may do to a SQLite file (PostgreSQL has its schema applied by `arbor migrate`):
 *
 * - `create`: commands that write (import, serve, mcp, chat, keys create): the file and its
 *   folder are created when missing, and the schema is set up or migrated on first use.
 * - `change`: commands that change what is there (rename, delete, prune…): the file must exist
 *   and hold Arbor's tables; an older schema is migrated, as by any write.
 * - `read`: commands that only read (list, show, tree, history, export): the file must exist
 *   and be at this Arbor's schema; it is opened read-only, so nothing in it can change.
 * - `search`: checked as `read`, then opened for writing, because a search first brings the
 *   store's own full-text index up to date with the messages appended since the last one.
 */
export type StoreAccess = "create" | "change" | "read" | "search";

/** How `openStore` opens: with the models (chat, serve), and what the command may do. */
export interface OpenStoreOptions {
  /** Load the models of the environment and their compaction. */
  withModels?: boolean;
  /** Default `create`. */
  access?: StoreAccess;
  /** The PostgreSQL pool's size and timeouts (`arbor serve`); other commands use 4 connections. */
  pool?: PgPoolOptions;
}

/** How a PostgreSQL pool is sized and how long anything may wait on it. */
export interface PgPoolOptions {
  /** Connections. Default 4. */
  max?: number;
  /** Milliseconds to wait for a free connection before failing (`STORAGE_UNAVAILABLE` at the API). */
  acquireTimeoutMs?: number;
  /** `statement_timeout` of every connection, in milliseconds; 0 for none. */
  statementTimeoutMs?: number;
}

/**
 * Opens the store as a `SessionManager` configured like every CLI session: a writable `memory`
 * block, the frozen prompt and, with `withModels` (chat, serve), LLM compaction when a model is
 * configured. Other commands never load the `ai` peer, whatever the environment says.
 */
export async function openStore(
  location: StoreLocation,
  {
    withModels = false,
    access = "create",
    pool: poolOptions,
  }: OpenStoreOptions = {},
): Promise<CliStore> {
  if (location.kind === "sqlite") {
    if (checkSqliteFile(location.target, access === "create") === "missing")
      mkdirSync(dirname(location.target), { recursive: true });
    if (access !== "create") checkSqliteSchema(location.target, access);
  }
  const models = withModels ? await loadModels() : null;
  if (location.kind === "sqlite") {
    const backend = sqliteBackend(location.target, {
      readonly: access === "read",
    });
    return {
      location,
      manager: configure(SessionManager.create(backend), models),
      keys: async () => apiKeysOf(backend),
      models,
      close: async () => backend.sqlite.close(),
    };
  }
  const pool = await openPostgresPool(location.target, poolOptions);
  const backend = postgresBackend(pool);
  return {
    location,
    manager: configure(SessionManager.create(backend), models),
    keys: async () => apiKeysOf(backend),
    models,
    close: () => pool.end(),
  };
}

/**
 * `arbor migrate --db`: brings an existing SQLite file to this Arbor's schema (an older Arbor's
 * file, or one of agents@0.22 / agents@0.32, is converted in place), as the first write of a
 * writing command would. Answers the state it found and the version it left.
 */
export function migrateSqliteFile(file: string): {
  before: SqliteSchemaState;
  version: number;
} {
  checkSqliteFile(file, false);
  const database = openSqlite(file);
  try {
    return applySqliteSchema(database);
  } finally {
    database.close();
  }
}

/**
 * A `pg` Pool that has answered one query; `pg` is loaded on demand so SQLite users never need
 * it. A URL that is not a PostgreSQL URL is `INVALID_ARGUMENT`; a server that cannot be reached
 * (refused, unknown host, bad credentials, no such database) is `STORAGE_UNAVAILABLE`.
 */
export async function openPostgresPool(
  url: string,
  options: PgPoolOptions = {},
): Promise<PgPool> {
  const parsed = parsePostgresUrl(url);
  let pg: typeof import("pg");
  try {
    const loaded = await import("pg");
    // pg is CommonJS: its classes sit on the default export.
    pg = commonJsDefault(loaded);
  } catch (error) {
    throw new ArborError(
      "MISSING_DEPENDENCY",
      "[arbor] [cli] PostgreSQL needs the package pg: npm install pg",
      { cause: error },
    );
  }
  const statementTimeout = options.statementTimeoutMs ?? 0;
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 4,
    // Bounded waits: for a connection from the pool (also the connect itself), and for an
    // answer on a socket that went silent, which `statement_timeout` cannot cut.
    ...(options.acquireTimeoutMs
      ? { connectionTimeoutMillis: options.acquireTimeoutMs }
      : {}),
    ...(statementTimeout > 0
      ? {
          statement_timeout: statementTimeout,
          query_timeout: statementTimeout + 5_000,
        }
      : {}),
    keepAlive: true,
  });
  // An idle client losing its connection must not crash the process.
  pool.on("error", () => {});
  try {
    await pool.query("SELECT 1", []);
  } catch (error) {
    await pool.end().catch(() => {});
    throw new ArborError(
      "STORAGE_UNAVAILABLE",
      `Cannot connect to PostgreSQL at ${describeServer(parsed)} (${errorReason(error)}): is the server running there, and are the URL's user, password and database right?`,
      { cause: error },
    );
  }
  return pool;
}

// --- Internal helpers ---

/** The first 16 bytes of every SQLite database file. */
const SQLITE_HEADER = "SQLite format 3\0";

/**
 * `missing` when there is no file (an error unless the command may `create` one); an existing
 * one must be SQLite (an empty file is: SQLite writes the header on first use). Directories are
 * left to `openSqlite`'s message.
 */
function checkSqliteFile(file: string, create: boolean): "missing" | "found" {
  let size: number;
  try {
    const stats = statSync(file);
    if (!stats.isFile()) return "found";
    size = stats.size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") return "found";
    if (create) return "missing";
    throw new CliError(
      "DATABASE_NOT_FOUND",
      `No database at ${file}: check --db (or ARBOR_DB); arbor import, arbor serve and arbor mcp create one`,
      { cause: error },
    );
  }
  if (size === 0) return "found";
  const header = Buffer.alloc(SQLITE_HEADER.length);
  let descriptor: number | undefined;
  try {
    descriptor = openSync(file, "r");
    readSync(descriptor, header, 0, header.length, 0);
  } catch {
    // Unreadable: openSqlite names the reason.
    return "found";
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
  if (header.toString("latin1") !== SQLITE_HEADER) {
    throw new ArborError(
      "STORAGE_UNAVAILABLE",
      `${file} is not a SQLite database: pass Arbor's database file with --db (or ARBOR_DB), or a path where a new one may be created`,
    );
  }
  return "found";
}

/**
 * Refuses, before anything is written, a file without Arbor's tables (another application's
 * database) for every command that does not create a store, and for reading commands a store that
 * needs a schema step (an older Arbor's, or one of agents@0.22 / agents@0.32): its first write
 * would migrate it, which only `arbor migrate --db` (or a writing command) is asked to do. The
 * check runs on a read-only connection, so the file stays byte for byte as it was.
 */
function checkSqliteSchema(file: string, access: StoreAccess): void {
  const database = openSqlite(file, { readonly: true, sqliteVec: false });
  let state: ReturnType<typeof inspectSqliteSchema>;
  try {
    state = inspectSqliteSchema(database);
  } finally {
    database.close();
  }
  if (state === "absent") {
    throw new ArborError(
      "SCHEMA_MISSING",
      `${file} holds no Arbor tables: it is not an Arbor database (or an empty one), and was left as it is. Pass Arbor's database with --db (or ARBOR_DB); arbor import writes sessions into a new file, and arbor migrate --db ${file} adds Arbor's tables to this one`,
    );
  }
  if (state === "outdated" && (access === "read" || access === "search")) {
    throw new ArborError(
      "SCHEMA_MISSING",
      `${file} is an Arbor database of an older schema (or one written by agents@0.22 or agents@0.32) and needs a schema step before this Arbor can read it; a reading command leaves it as it is. Run: arbor migrate --db ${file}`,
    );
  }
}

/** `postgres://` or `postgresql://` with a host; anything else is a mistake worth naming. */
function parsePostgresUrl(url: string): URL {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (
    !parsed ||
    (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:")
  ) {
    throw new ArborError(
      "INVALID_ARGUMENT",
      `--postgres (or DATABASE_URL) takes a URL such as postgres://user:password@localhost:5432/database; got ${JSON.stringify(redactUrl(url))}`,
    );
  }
  return parsed;
}

/** Host, port and database of a URL, never its password. */
function describeServer(url: URL): string {
  const host = url.hostname || "localhost";
  return `${host}:${url.port || "5432"}${url.pathname.length > 1 ? url.pathname : ""}`;
}

/** A string that failed to parse as a URL may still hold a password after `:` and before `@`. */
function redactUrl(text: string): string {
  return text.replace(/:[^:@/]*@/, ":…@");
}

/** The API keys the store keeps beside its sessions (the backend's own key store). */
function apiKeysOf(backend: Backend): ApiKeyStore {
  if (backend.apiKeys) return backend.apiKeys;
  throw new ArborError(
    "NOT_SUPPORTED",
    `[arbor] [cli] the ${backend.name} backend keeps no API keys`,
  );
}

function configure(
  manager: SessionManager,
  models: CliModels | null,
): SessionManager {
  manager
    .withContext(MEMORY_BLOCK.label, {
      description: MEMORY_BLOCK.description,
      maxTokens: MEMORY_BLOCK.maxTokens,
    })
    .withCachedPrompt();
  if (models) manager.onCompaction(models.compact);
  return manager;
}

/** Loads the agent entry (and with it the `ai` peer) only when a model is configured. */
async function loadModels(): Promise<CliModels | null> {
  if (!readModelEnv(process.env)) return null;
  const agent = await import("../agent/index.js");
  const { createCompactFunction } = await import("../utils/index.js");
  const models = await agent.modelFromEnv(process.env);
  if (!models) return null;
  return {
    ...models,
    compact: createCompactFunction({
      summarize: agent.summarizeWith(models.summaryModel),
    }),
  };
}

/** A CommonJS package loaded with `import()`: its exports sit on `default` when Node wraps it. */
function commonJsDefault<T extends object>(loaded: T): T {
  const wrapped: unknown = Reflect.get(loaded, "default");
  return typeof wrapped === "object" && wrapped !== null
    ? (wrapped as T)
    : loaded;
}
