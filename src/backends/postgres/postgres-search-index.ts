import type {
  SearchIndexChange,
  SearchIndexSettings,
} from "../../session/contracts/backend.js";
import { ArborError } from "../../session/errors/index.js";
import type { PostgresClient, PostgresQueryable } from "./postgres-client.js";
import { postgresExecutor } from "./postgres-executor.js";
import { TOOL_OUTPUTS_KEY, TOOL_OUTPUTS_SQL } from "./postgres-search-text.js";
import { postgresSettings } from "./postgres-settings.js";
import { rewriteToolCallSearchText } from "./postgres-tool-input-upgrade.js";

/*
 * The search-index settings of a PostgreSQL database (docs/behavior/search.md#tool-outputs), kept
 * in `arbor_meta`. Every write reads the setting inside its own statement (`INDEXED_TEXT_SQL`),
 * so processes never need to be told; a change takes the message table's lock for its whole
 * transaction, so each concurrent write commits wholly before it (and is re-indexed by it) or
 * wholly after it (and indexes by the new setting). Loaded on first use.
 */

/** The settings the database's index follows. */
export async function postgresSearchIndexSettings(
  client: PostgresClient,
): Promise<SearchIndexSettings> {
  const executor = postgresExecutor(client);
  await postgresSettings(executor);
  return { toolOutputs: await readToolOutputs(executor) };
}

/**
 * Records the settings and, when tool outputs go in or out, rebuilds the search text of every
 * message that may hold a tool call, in one transaction holding `SHARE ROW EXCLUSIVE` on the
 * message table: writes wait for it (reads do not), and two changes run one after the other.
 */
export async function configurePostgresSearchIndex(
  client: PostgresClient,
  settings: SearchIndexSettings,
): Promise<SearchIndexChange> {
  const executor = postgresExecutor(client);
  await postgresSettings(executor);
  const toolOutputs = settings.toolOutputs;
  if ((await readToolOutputs(executor)) === toolOutputs)
    return { settings: { toolOutputs }, changed: false, reindexed: 0 };
  if (!executor.supportsTransactions) {
    throw new ArborError(
      "NOT_SUPPORTED",
      "[arbor] [postgres] configureSearchIndex() needs a transaction: pass a pg Pool or Client, or a postgres.js sql, not an execute-style connection",
    );
  }
  return executor.transaction(async (tx) => {
    await tx.query("LOCK TABLE assistant_messages IN SHARE ROW EXCLUSIVE MODE");
    if ((await readToolOutputs(tx)) === toolOutputs)
      return { settings: { toolOutputs }, changed: false, reindexed: 0 };
    if (toolOutputs)
      await tx.query(
        "INSERT INTO arbor_meta (key, value) VALUES (?, '1') ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
        [TOOL_OUTPUTS_KEY],
      );
    else
      await tx.query("DELETE FROM arbor_meta WHERE key = ?", [
        TOOL_OUTPUTS_KEY,
      ]);
    const reindexed = await rewriteToolCallSearchText(tx, toolOutputs);
    return { settings: { toolOutputs }, changed: true, reindexed };
  });
}

// --- Internal helpers ---

async function readToolOutputs(db: PostgresQueryable): Promise<boolean> {
  const [row] = await db.query<{ present: boolean }>(
    `SELECT ${TOOL_OUTPUTS_SQL} AS present`,
  );
  return row?.present === true;
}
