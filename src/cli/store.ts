import { closeSync, openSync, readSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { readModelEnv, type ConfiguredModels } from "../agent/model-config.js";
import { ArborError, SessionManager } from "../session/index.js";
import type { PgClientLike } from "../session/index.js";
import { openSqlite } from "../sqlite/index.js";
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

/** How `openStore` opens: with the models (chat, serve), and whether the store must exist. */
export interface OpenStoreOptions {
  /** Load the models of the environment and their compaction. */
  withModels?: boolean;
  /**
   * Fail with `STORAGE_UNAVAILABLE` when the SQLite file does not exist, instead of creating
   * an empty database: for the commands that only read or change what is there.
   */
  mustExist?: boolean;
}

/**
 * Opens the store as a `SessionManager` configured like every CLI session: a writable `memory`
 * block, the frozen prompt and, with `withModels` (chat, serve), LLM compaction when a model is
 * configured. Other commands never load the `ai` peer, whatever the environment says.
 */
export async function openStore(
  location: StoreLocation,
  { withModels = false, mustExist = false }: OpenStoreOptions = {},
): Promise<CliStore> {
  if (location.kind === "sqlite") checkSqliteFile(location.target, mustExist);
  const models = withModels ? await loadModels() : null;
  if (location.kind === "sqlite") {
    const database = openSqlite(location.target);
    return {
      location,
      manager: configure(SessionManager.create(database), models),
      keys: async () => new (await serverAuth()).SqlApiKeyStore(database),
      models,
      close: async () => database.close(),
    };
  }
  const pool = await openPostgresPool(location.target);
  return {
    location,
    manager: configure(SessionManager.create(pool), models),
    keys: async () => new (await serverAuth()).PostgresApiKeyStore(pool),
    models,
    close: () => pool.end(),
  };
}

/**
 * A `pg` Pool that has answered one query; `pg` is loaded on demand so SQLite users never need
 * it. A URL that is not a PostgreSQL URL is `INVALID_ARGUMENT`; a server that cannot be reached
 * (refused, unknown host, bad credentials, no such database) is `STORAGE_UNAVAILABLE`.
 */
export async function openPostgresPool(url: string): Promise<PgPool> {
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
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  // An idle client losing its connection must not crash the process.
  pool.on("error", () => {});
  try {
    await pool.query("SELECT 1", []);
  } catch (error) {
    await pool.end().catch(() => {});
    throw new ArborError(
      "STORAGE_UNAVAILABLE",
      `Cannot connect to PostgreSQL at ${describeServer(parsed)} (${reasonOf(error)}): is the server running there, and are the URL's user, password and database right?`,
      { cause: error },
    );
  }
  return pool;
}

// --- Internal helpers ---

/** The first 16 bytes of every SQLite database file. */
const SQLITE_HEADER = "SQLite format 3\0";

/**
 * A missing file is created unless `mustExist`; an existing one must be SQLite (an empty file
 * is: SQLite writes the header on first use). Directories are left to `openSqlite`'s message.
 */
function checkSqliteFile(file: string, mustExist: boolean): void {
  let size: number;
  try {
    const stats = statSync(file);
    if (!stats.isFile()) return;
    size = stats.size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") return;
    if (!mustExist) return;
    throw new ArborError(
      "STORAGE_UNAVAILABLE",
      `No database at ${file}: check --db (or ARBOR_DB); arbor import and arbor serve create one`,
      { cause: error },
    );
  }
  if (size === 0) return;
  const header = Buffer.alloc(SQLITE_HEADER.length);
  let descriptor: number | undefined;
  try {
    descriptor = openSync(file, "r");
    readSync(descriptor, header, 0, header.length, 0);
  } catch {
    // Unreadable: openSqlite names the reason.
    return;
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
  if (header.toString("latin1") !== SQLITE_HEADER) {
    throw new ArborError(
      "STORAGE_UNAVAILABLE",
      `${file} is not a SQLite database: pass Arbor's database file with --db (or ARBOR_DB), or a path where a new one may be created`,
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

/** The driver's message, or its code when the message is empty (Node's AggregateError). */
function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && !message.includes(code))
    return message ? `${code}: ${message}` : code;
  return message;
}

/** The key stores live in the server entry, which only key and serve commands need. */
function serverAuth() {
  return import("../server/index.js");
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
