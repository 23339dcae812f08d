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

/**
 * Opens the store as a `SessionManager` configured like every CLI session: a writable `memory`
 * block, the frozen prompt and, with `withModels` (chat, serve), LLM compaction when a model is
 * configured. Other commands never load the `ai` peer, whatever the environment says.
 */
export async function openStore(
  location: StoreLocation,
  { withModels = false }: { withModels?: boolean } = {},
): Promise<CliStore> {
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

/** A `pg` Pool; `pg` is loaded on demand so SQLite users never need it. */
export async function openPostgresPool(url: string): Promise<PgPool> {
  let pg: typeof import("pg");
  try {
    const loaded = await import("pg");
    // pg is CommonJS: its classes sit on the default export.
    pg =
      (loaded as unknown as { default?: typeof import("pg") }).default ??
      loaded;
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
  return pool;
}

// --- Internal helpers ---

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
