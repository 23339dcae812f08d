import type {
  SearchIndexChange,
  SearchIndexSettings,
} from "../../session/contracts/backend.js";
import type { SqlProvider } from "../../session/contracts/sql-provider.js";
import { ensureAgentSchema } from "./sql-schema.js";
import {
  markToolCallRowsStale,
  rewriteStaleIndexRows,
  TOOL_OUTPUTS_KEY,
} from "./sql-search.js";
import { atomically } from "./sql-transaction.js";

/*
 * The search-index settings of a `sql` store (docs/behavior/search.md#tool-outputs), kept in
 * `arbor_meta` so that every process over the store indexes alike: the catch-up reads them inside
 * its own transaction (sql-search.ts). Loaded on first use; a Durable Object that never changes
 * them does not carry this.
 */

/** The settings the store's index follows. */
export function sqlSearchIndexSettings(
  agent: SqlProvider,
): SearchIndexSettings {
  ensureAgentSchema(agent);
  return { toolOutputs: readToolOutputs(agent) };
}

/**
 * Records the settings and, when tool outputs go in or out, re-indexes every message that may
 * hold a tool call, all in one transaction: a catch-up of another process runs wholly before it
 * (by the old setting, then rewritten here) or wholly after it (by the new one).
 */
export function configureSqlSearchIndex(
  agent: SqlProvider,
  settings: SearchIndexSettings,
): SearchIndexChange {
  ensureAgentSchema(agent);
  return atomically(agent, () => {
    const toolOutputs = settings.toolOutputs;
    if (readToolOutputs(agent) === toolOutputs)
      return { settings: { toolOutputs }, changed: false, reindexed: 0 };
    if (toolOutputs)
      agent.sql`INSERT INTO arbor_meta (key, value) VALUES (${TOOL_OUTPUTS_KEY}, '1')
        ON CONFLICT (key) DO UPDATE SET value = excluded.value`;
    else agent.sql`DELETE FROM arbor_meta WHERE key = ${TOOL_OUTPUTS_KEY}`;
    markToolCallRowsStale(agent);
    // Paid now rather than by the next search; messages above the watermark are indexed by the
    // next catch-up, under the new setting.
    rewriteStaleIndexRows(agent);
    return {
      settings: { toolOutputs },
      changed: true,
      reindexed: toolCallRows(agent),
    };
  });
}

// --- Internal helpers ---

/** Messages that may hold a tool call, indexed or not yet (the same test as `markToolCallRowsStale`). */
function toolCallRows(agent: SqlProvider): number {
  const [row] = agent.sql<{ n: number }>`
    SELECT COUNT(*) AS n FROM assistant_messages
    WHERE content LIKE '%tool-%' OR content LIKE '%dynamic-tool%' OR chunked_bytes IS NOT NULL`;
  return Number(row?.n ?? 0);
}

function readToolOutputs(agent: SqlProvider): boolean {
  const [row] = agent.sql<{ value: string | null }>`
    SELECT value FROM arbor_meta WHERE key = ${TOOL_OUTPUTS_KEY}`;
  return row?.value === "1";
}
