import { mapSqlErrors } from "./sql-errors.js";
import { ArborError } from "../../session/errors/index.js";
import type { WritableContextProvider } from "../../session/contracts/context-provider.js";
import type { SqlProvider } from "../../session/contracts/sql-provider.js";
import { nowIso } from "../../session/state/now-iso.js";
import { lazyTableExists } from "./sql-lazy-table.js";

const tablesReady = new WeakSet<object>();

/**
 * A writable block stored in `cf_agents_context_blocks` (docs/behavior/context-blocks.md), keyed by label. The
 * default provider of blocks configured without one on a `sql` store: the key is the label, or
 * `<label>_<sessionId>` for namespaced sessions.
 */
export class AgentContextProvider implements WritableContextProvider {
  private key: string | undefined;

  constructor(
    private readonly agent: SqlProvider,
    key?: string,
  ) {
    this.key = key;
  }

  /** Sets the row key from the block label, unless the constructor was given one. */
  init(label: string): void {
    this.key ??= label;
  }

  async get(): Promise<string | null> {
    if (!lazyTableExists(this.agent, tablesReady, "cf_agents_context_blocks"))
      return null;
    const rows = this.agent.sql<{ content: string }>`
      SELECT content FROM cf_agents_context_blocks WHERE label = ${this.requireKey()}`;
    return rows[0]?.content ?? null;
  }

  async set(content: string): Promise<void> {
    ensureContextBlockTable(this.agent);
    this.agent
      .sql`INSERT INTO cf_agents_context_blocks (label, content, updated_at)
      VALUES (${this.requireKey()}, ${content}, ${nowIso()})
      ON CONFLICT (label) DO UPDATE SET content = excluded.content, updated_at = excluded.updated_at`;
  }

  // --- Internal helpers ---

  private requireKey(): string {
    if (this.key === undefined) {
      throw new ArborError(
        "INVALID_ARGUMENT",
        "[arbor] AgentContextProvider has no key: pass one to the constructor or use it as a block provider",
      );
    }
    return this.key;
  }
}

export function ensureContextBlockTable(agent: SqlProvider): void {
  if (tablesReady.has(agent)) return;
  agent.sql`CREATE TABLE IF NOT EXISTS cf_agents_context_blocks (
    label TEXT PRIMARY KEY,
    content TEXT NOT NULL,
    updated_at TEXT
  )`;
  tablesReady.add(agent);
}

// What leaves a method is Arbor's error, the store's own as its cause (sql-errors.ts).
mapSqlErrors(AgentContextProvider.prototype);
