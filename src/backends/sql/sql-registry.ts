import { mapSqlErrors } from "./sql-errors.js";
import { rankedExpressions } from "./sql-rare-terms.js";
import { analyzeQuery } from "../../session/text/query-analysis.js";
import {
  normalizeSearchLimit,
  RANK_WINDOW,
  rankTail,
} from "../../session/text/search-limit.js";
import {
  searchResultsFromRows,
  sessionInfoFromRow,
} from "../../session/messages/stored-rows.js";
import type { SqlProvider } from "../../session/contracts/sql-provider.js";
import type { SessionInfo } from "../../session/contracts/session-info.js";
import type { SearchResult } from "../../session/contracts/types.js";
import { ensureRegistryTable, registerIfAbsent } from "./sql-registry-table.js";
import { releaseAttachments } from "./sql-attachments.js";
import { atomically } from "./sql-transaction.js";
import { catchUpIndex } from "./sql-search.js";
import {
  withWholeContent,
  type StoredContentRow,
} from "./sql-message-chunks.js";
import { ensureBlockHistoryTable } from "./sql-block-history.js";
import { ensureContextBlockTable } from "./sql-context-provider.js";
import { recordChange } from "./sql-changes.js";
import { ensureAgentSchema } from "./sql-schema.js";
import {
  compareListOrder,
  type CreatedBlockRows,
  type MessageRef,
  type RegistryListOptions,
  type RegistrySearchOptions,
  type SessionInfoPatch,
  type SessionListing,
  type SessionRegistry,
  type SummaryHit,
} from "../../session/contracts/registry.js";

/** The registry in `assistant_sessions` / `assistant_config` of a `sql` store (SQLite, Durable Object). */
export class SqlSessionRegistry implements SessionRegistry {
  constructor(private readonly agent: SqlProvider) {}

  insert(info: SessionInfo): void {
    this.ready();
    this.agent
      .sql`INSERT INTO assistant_sessions (id, name, parent_session_id, model, source,
        input_tokens, output_tokens, estimated_cost, end_reason, created_at, updated_at)
      VALUES (${info.id}, ${info.name}, ${info.parent_session_id}, ${info.model}, ${info.source},
        ${info.input_tokens}, ${info.output_tokens}, ${info.estimated_cost}, ${info.end_reason},
        ${info.created_at}, ${info.updated_at})`;
  }

  /** The row and its config entries in one transaction (`atomically`): all or nothing. */
  insertWithConfig(
    info: SessionInfo,
    config: Readonly<Record<string, string>>,
  ): void {
    this.ready();
    atomically(this.agent, () => {
      this.insert(info);
      for (const [key, value] of Object.entries(config))
        this.setConfig(info.id, key, value);
    });
  }

  /**
   * Inserts the row unless the id has one: how a session written without the manager gets
   * registered by its first message (docs/behavior/manager.md#sessions-written-without-the-manager).
   */
  insertIfAbsent(info: SessionInfo): void {
    registerIfAbsent(this.agent, info);
  }

  get(id: string): SessionInfo | null {
    this.ready();
    const [row] = this.agent
      .sql<SessionInfo>`SELECT * FROM assistant_sessions WHERE id = ${id}`;
    return row ? sessionInfoFromRow(row) : null;
  }

  getMany(ids: readonly string[]): SessionInfo[] {
    this.ready();
    return this.agent.sql<SessionInfo>`SELECT * FROM assistant_sessions
      WHERE id IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`.map(
      sessionInfoFromRow,
    );
  }

  openings(messages: ReadonlyArray<MessageRef>): MessageRef[] {
    this.ready();
    // One lookup per message on the (session_id, id) key.
    return this.agent
      .sql<MessageRef>`SELECT m.session_id AS sessionId, m.id AS id
      FROM json_each(${JSON.stringify(messages.map((m) => [m.sessionId, m.id]))}) AS ref
      JOIN assistant_messages AS m
        ON m.session_id = json_extract(ref.value, '$[0]') AND m.id = json_extract(ref.value, '$[1]')
      WHERE m.parent_id IS NULL`;
  }

  list(options: RegistryListOptions): SessionInfo[] {
    this.ready();
    const after = options.after;
    const limit = options.limit ?? -1;
    return this.agent.sql<SessionInfo>`
      SELECT s.* FROM assistant_sessions AS s
      WHERE (${options.ownerId ?? null} IS NULL OR EXISTS (
          SELECT 1 FROM assistant_config AS c
          WHERE c.session_id = s.id AND c.key = 'owner' AND c.value = ${options.ownerId ?? null}))
        AND (${after ? 1 : 0} = 0
          OR s.updated_at < ${after?.updated_at ?? null}
          OR (s.updated_at = ${after?.updated_at ?? null} AND s.created_at < ${after?.created_at ?? null})
          OR (s.updated_at = ${after?.updated_at ?? null} AND s.created_at = ${after?.created_at ?? null}
            AND s.id > ${after?.id ?? null}))
        AND (${parentMode(options)} = 0
          OR (${parentMode(options)} = 2 AND s.parent_session_id = ${options.parentSessionId ?? null})
          OR (${parentMode(options)} = 1 AND (s.parent_session_id IS NULL OR NOT EXISTS (
            SELECT 1 FROM assistant_sessions AS p WHERE p.id = s.parent_session_id
              AND (${options.ownerId ?? null} IS NULL OR EXISTS (
                SELECT 1 FROM assistant_config AS c
                WHERE c.session_id = p.id AND c.key = 'owner' AND c.value = ${options.ownerId ?? null}))))))
      ORDER BY s.updated_at DESC, s.created_at DESC, s.id ASC
      LIMIT ${limit}`.map(sessionInfoFromRow);
  }

  /**
   * The page of `list()` with each row's owner, metadata and message count, in one statement:
   * the page is cut first, so the per-row lookups run only for the rows listed.
   */
  listDetailed(options: RegistryListOptions): SessionListing[] {
    this.ready();
    const after = options.after;
    const limit = options.limit ?? -1;
    const rows = this.agent.sql<
      SessionInfo & {
        arbor_owner_id: string | null;
        arbor_metadata: string | null;
        arbor_message_count: number;
        arbor_child_count: number;
      }
    >`
      SELECT page.*,
        (SELECT c.value FROM assistant_config AS c
          WHERE c.session_id = page.id AND c.key = 'owner') AS arbor_owner_id,
        (SELECT json_group_object(substr(c.key, 6), c.value) FROM assistant_config AS c
          WHERE c.session_id = page.id AND substr(c.key, 1, 5) = 'meta:') AS arbor_metadata,
        (SELECT COUNT(*) FROM assistant_messages AS m
          WHERE m.session_id = page.id) AS arbor_message_count,
        (SELECT COUNT(*) FROM assistant_sessions AS k
          WHERE k.parent_session_id = page.id
            AND (${options.ownerId ?? null} IS NULL OR EXISTS (
              SELECT 1 FROM assistant_config AS c
              WHERE c.session_id = k.id AND c.key = 'owner' AND c.value = ${options.ownerId ?? null}))
        ) AS arbor_child_count
      FROM (SELECT s.* FROM assistant_sessions AS s
        WHERE (${options.ownerId ?? null} IS NULL OR EXISTS (
            SELECT 1 FROM assistant_config AS c
            WHERE c.session_id = s.id AND c.key = 'owner' AND c.value = ${options.ownerId ?? null}))
          AND (${after ? 1 : 0} = 0
            OR s.updated_at < ${after?.updated_at ?? null}
            OR (s.updated_at = ${after?.updated_at ?? null} AND s.created_at < ${after?.created_at ?? null})
            OR (s.updated_at = ${after?.updated_at ?? null} AND s.created_at = ${after?.created_at ?? null}
              AND s.id > ${after?.id ?? null}))
          AND (${parentMode(options)} = 0
            OR (${parentMode(options)} = 2 AND s.parent_session_id = ${options.parentSessionId ?? null})
            OR (${parentMode(options)} = 1 AND (s.parent_session_id IS NULL OR NOT EXISTS (
              SELECT 1 FROM assistant_sessions AS p WHERE p.id = s.parent_session_id
                AND (${options.ownerId ?? null} IS NULL OR EXISTS (
                  SELECT 1 FROM assistant_config AS c
                  WHERE c.session_id = p.id AND c.key = 'owner' AND c.value = ${options.ownerId ?? null}))))))
        ORDER BY s.updated_at DESC, s.created_at DESC, s.id ASC
        LIMIT ${limit}) AS page`;
    // Keys and rows in the order `listConfig()` and `list()` give them.
    return rows
      .map((row) => ({
        info: sessionInfoFromRow(row),
        ownerId: row.arbor_owner_id ?? null,
        metadata: Object.fromEntries(
          Object.entries(
            JSON.parse(row.arbor_metadata ?? "{}") as Record<string, string>,
          ).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        ),
        messageCount: Number(row.arbor_message_count ?? 0),
        childCount: Number(row.arbor_child_count ?? 0),
      }))
      .sort((a, b) => compareListOrder(a.info, b.info));
  }

  update(id: string, patch: SessionInfoPatch): boolean {
    this.ready();
    const current = this.get(id);
    if (!current) return false;
    const next = { ...current, ...patch };
    this.agent.sql`UPDATE assistant_sessions SET name = ${next.name},
        parent_session_id = ${next.parent_session_id}, end_reason = ${next.end_reason},
        model = ${next.model}, source = ${next.source}, updated_at = ${next.updated_at}
      WHERE id = ${id}`;
    return true;
  }

  addUsage(
    id: string,
    inputTokens: number,
    outputTokens: number,
    cost: number,
    at: string,
  ): boolean {
    this.ready();
    const [row] = this.agent.sql<{ id: string }>`UPDATE assistant_sessions
      SET input_tokens = input_tokens + ${inputTokens}, output_tokens = output_tokens + ${outputTokens},
        estimated_cost = estimated_cost + ${cost}, updated_at = ${at}
      WHERE id = ${id} RETURNING id`;
    return row !== undefined;
  }

  touch(id: string, at: string): void {
    this.ready();
    this.agent
      .sql`UPDATE assistant_sessions SET updated_at = ${at} WHERE id = ${id}`;
  }

  count(): number {
    this.ready();
    const [row] = this.agent.sql<{
      count: number;
    }>`SELECT COUNT(*) AS count FROM assistant_sessions`;
    return Number(row?.count ?? 0);
  }

  getConfig(sessionId: string, key: string): string | null {
    this.ready();
    const [row] = this.agent.sql<{ value: string }>`
      SELECT value FROM assistant_config WHERE session_id = ${sessionId} AND key = ${key}`;
    return row?.value ?? null;
  }

  setConfig(sessionId: string, key: string, value: string): void {
    this.ready();
    this.agent
      .sql`INSERT INTO assistant_config (session_id, key, value) VALUES (${sessionId}, ${key}, ${value})
      ON CONFLICT (session_id, key) DO UPDATE SET value = excluded.value`;
  }

  setConfigIfAbsent(sessionId: string, key: string, value: string): boolean {
    this.ready();
    this.agent
      .sql`INSERT INTO assistant_config (session_id, key, value) VALUES (${sessionId}, ${key}, ${value})
      ON CONFLICT (session_id, key) DO NOTHING`;
    // `changes()` of this connection, read next (a sql store is synchronous, so nothing runs in
    // between): not `RETURNING`, which a `sql` tag that runs writes without reading rows drops.
    const [row] = this.agent.sql<{
      inserted: number;
    }>`SELECT changes() AS inserted`;
    return Number(row?.inserted ?? 0) > 0;
  }

  listConfig(sessionId: string, prefix: string): Record<string, string> {
    this.ready();
    // Selected by prefix in SQL (the key index starts the scan at the prefix): a session with
    // many large entries (LangGraph checkpoints) reads only the ones asked for.
    const rows = this.agent.sql<{ key: string; value: string }>`
      SELECT key, value FROM assistant_config
      WHERE session_id = ${sessionId} AND key >= ${prefix}
        AND substr(key, 1, length(${prefix})) = ${prefix}
      ORDER BY key`;
    return Object.fromEntries(rows.map((row) => [row.key, row.value]));
  }

  search(query: string, options: RegistrySearchOptions): SearchResult[] {
    this.ready();
    const analyzed = analyzeQuery(
      typeof query === "string" ? query.replaceAll("\u0000", " ") : query,
      options.match ?? "any",
      options.prefix,
    );
    if (analyzed === null) return [];
    catchUpIndex(this.agent);
    const sessionIds = options.sessionIds
      ? JSON.stringify(options.sessionIds)
      : null;
    const ownerId = options.ownerId ?? null;
    const since = options.since ?? null;
    const until = options.until ?? null;
    let rows: Array<
      StoredContentRow & {
        id: string;
        session_id: string;
        role: string;
        created_at: string;
      }
    >;
    try {
      // As in a session's search (sql-search.ts): in each arm the newest matches that pass the
      // filters, up to the rank window, are scored and sorted; older matches are never scored.
      const limit = normalizeSearchLimit(options.limit);
      const window = options.rankWindow ?? RANK_WINDOW;
      // Newest matches past the scored ones, unscored, for a limit past the window (rankTail).
      const tail = rankTail(window, limit);
      // Every match of a rare term is a candidate too (sql-rare-terms.ts).
      const { all, any, rare, rareLimit, anyWindow } = rankedExpressions(
        this.agent,
        analyzed,
        window,
      );
      rows =
        any === null
          ? this.agent.sql`
        SELECT m.seq AS seq, m.id AS id, m.session_id AS session_id, m.role AS role,
          m.content AS content, m.chunked_bytes AS chunked_bytes, m.created_at AS created_at
        FROM (
          SELECT seq, MIN(score) AS score FROM (
            SELECT * FROM (
              SELECT f.rowid AS seq, f.rank AS score
              FROM assistant_fts AS f
                CROSS JOIN assistant_messages AS m ON m.seq = f.rowid
                CROSS JOIN assistant_sessions AS s ON s.id = m.session_id
              WHERE assistant_fts MATCH ${all}
                AND (${sessionIds} IS NULL OR m.session_id IN (SELECT value FROM json_each(${sessionIds})))
                AND (${ownerId} IS NULL OR EXISTS (SELECT 1 FROM assistant_config AS c
                  WHERE c.session_id = m.session_id AND c.key = 'owner' AND c.value = ${ownerId}))
                AND (${since} IS NULL OR m.created_at >= ${since})
                AND (${until} IS NULL OR m.created_at < ${until})
              ORDER BY f.rowid DESC
              LIMIT ${window})
            UNION ALL
            SELECT * FROM (
              SELECT f.rowid AS seq, NULL AS score
              FROM assistant_fts AS f
                CROSS JOIN assistant_messages AS m ON m.seq = f.rowid
                CROSS JOIN assistant_sessions AS s ON s.id = m.session_id
              WHERE assistant_fts MATCH ${all}
                AND (${sessionIds} IS NULL OR m.session_id IN (SELECT value FROM json_each(${sessionIds})))
                AND (${ownerId} IS NULL OR EXISTS (SELECT 1 FROM assistant_config AS c
                  WHERE c.session_id = m.session_id AND c.key = 'owner' AND c.value = ${ownerId}))
                AND (${since} IS NULL OR m.created_at >= ${since})
                AND (${until} IS NULL OR m.created_at < ${until})
              ORDER BY f.rowid DESC
              LIMIT ${tail})
          ) GROUP BY seq
        ) AS hit CROSS JOIN assistant_messages AS m ON m.seq = hit.seq
        ORDER BY hit.score IS NULL, hit.score, hit.seq DESC
        LIMIT ${limit}`
          : this.agent.sql`
        SELECT m.seq AS seq, m.id AS id, m.session_id AS session_id, m.role AS role,
          m.content AS content, m.chunked_bytes AS chunked_bytes, m.created_at AS created_at
        FROM (
          SELECT seq, MIN(score) AS score, MAX(every) AS every FROM (
            SELECT * FROM (
              SELECT f.rowid AS seq, NULL AS score, 1 AS every
              FROM assistant_fts AS f
                CROSS JOIN assistant_messages AS m ON m.seq = f.rowid
                CROSS JOIN assistant_sessions AS s ON s.id = m.session_id
              WHERE assistant_fts MATCH ${all}
                AND (${sessionIds} IS NULL OR m.session_id IN (SELECT value FROM json_each(${sessionIds})))
                AND (${ownerId} IS NULL OR EXISTS (SELECT 1 FROM assistant_config AS c
                  WHERE c.session_id = m.session_id AND c.key = 'owner' AND c.value = ${ownerId}))
                AND (${since} IS NULL OR m.created_at >= ${since})
                AND (${until} IS NULL OR m.created_at < ${until})
              ORDER BY f.rowid DESC
              LIMIT ${window})
            UNION ALL
            SELECT * FROM (
              SELECT f.rowid AS seq, f.rank AS score, 0 AS every
              FROM assistant_fts AS f
                CROSS JOIN assistant_messages AS m ON m.seq = f.rowid
                CROSS JOIN assistant_sessions AS s ON s.id = m.session_id
              WHERE assistant_fts MATCH ${any}
                AND (${sessionIds} IS NULL OR m.session_id IN (SELECT value FROM json_each(${sessionIds})))
                AND (${ownerId} IS NULL OR EXISTS (SELECT 1 FROM assistant_config AS c
                  WHERE c.session_id = m.session_id AND c.key = 'owner' AND c.value = ${ownerId}))
                AND (${since} IS NULL OR m.created_at >= ${since})
                AND (${until} IS NULL OR m.created_at < ${until})
              ORDER BY f.rowid DESC
              LIMIT ${anyWindow})
            UNION ALL
            SELECT * FROM (
              SELECT f.rowid AS seq, f.rank AS score, 0 AS every
              FROM assistant_fts AS f
                CROSS JOIN assistant_messages AS m ON m.seq = f.rowid
                CROSS JOIN assistant_sessions AS s ON s.id = m.session_id
              WHERE assistant_fts MATCH ${rare ?? all}
                AND (${sessionIds} IS NULL OR m.session_id IN (SELECT value FROM json_each(${sessionIds})))
                AND (${ownerId} IS NULL OR EXISTS (SELECT 1 FROM assistant_config AS c
                  WHERE c.session_id = m.session_id AND c.key = 'owner' AND c.value = ${ownerId}))
                AND (${since} IS NULL OR m.created_at >= ${since})
                AND (${until} IS NULL OR m.created_at < ${until})
              ORDER BY f.rowid DESC
              LIMIT ${rareLimit})
            UNION ALL
            SELECT * FROM (
              SELECT f.rowid AS seq, NULL AS score, 0 AS every
              FROM assistant_fts AS f
                CROSS JOIN assistant_messages AS m ON m.seq = f.rowid
                CROSS JOIN assistant_sessions AS s ON s.id = m.session_id
              WHERE assistant_fts MATCH ${any}
                AND (${sessionIds} IS NULL OR m.session_id IN (SELECT value FROM json_each(${sessionIds})))
                AND (${ownerId} IS NULL OR EXISTS (SELECT 1 FROM assistant_config AS c
                  WHERE c.session_id = m.session_id AND c.key = 'owner' AND c.value = ${ownerId}))
                AND (${since} IS NULL OR m.created_at >= ${since})
                AND (${until} IS NULL OR m.created_at < ${until})
              ORDER BY f.rowid DESC
              LIMIT ${tail})
          ) GROUP BY seq
        ) AS hit CROSS JOIN assistant_messages AS m ON m.seq = hit.seq
        ORDER BY hit.every DESC, hit.score IS NULL, hit.score, hit.seq DESC
        LIMIT ${limit}`;
    } catch {
      return [];
    }
    return searchResultsFromRows(withWholeContent(this.agent, rows));
  }

  /**
   * Overlays whose summary matches the query, newest first (explained manager search). Loaded
   * on first use, like the rest of explained search.
   */
  async searchSummaries(
    query: string,
    options: RegistrySearchOptions,
  ): Promise<SummaryHit[]> {
    this.ready();
    const { searchSummaryRows } = await import("./sql-summary-search.js");
    return searchSummaryRows(this.agent, query, options);
  }

  deleteSession(id: string, contextKeys: readonly string[]): boolean {
    this.ready();
    ensureBlockHistoryTable(this.agent);
    ensureContextBlockTable(this.agent);
    return atomically(this.agent, () => {
      const [row] = this.agent.sql<{
        id: string;
      }>`SELECT id FROM assistant_sessions WHERE id = ${id}`;
      if (!row) return false;
      const keys = JSON.stringify(contextKeys);
      this.agent.sql`DELETE FROM assistant_fts WHERE rowid IN
        (SELECT seq FROM assistant_messages WHERE session_id = ${id})`;
      this.agent.sql`DELETE FROM arbor_fts_stale WHERE seq IN
        (SELECT seq FROM assistant_messages WHERE session_id = ${id})`;
      this.agent.sql`DELETE FROM assistant_messages WHERE session_id = ${id}`;
      releaseAttachments(this.agent, id, null);
      this.agent
        .sql`DELETE FROM assistant_compactions WHERE session_id = ${id}`;
      this.agent.sql`DELETE FROM assistant_config WHERE session_id = ${id}`;
      this.agent.sql`DELETE FROM arbor_block_history WHERE session_id = ${id}`;
      this.agent.sql`DELETE FROM arbor_changes WHERE session_id = ${id}`;
      this.agent
        .sql`DELETE FROM cf_agents_context_blocks WHERE label IN (SELECT value FROM json_each(${keys}))`;
      this.agent.sql`DELETE FROM assistant_sessions WHERE id = ${id}`;
      return true;
    });
  }

  /**
   * The definition claimed, what an earlier block of the label left removed and the `block`
   * change recorded, in one transaction (`atomically`).
   */
  createBlock(
    sessionId: string,
    block: CreatedBlockRows,
    definition: string,
  ): boolean {
    this.blockTables();
    return atomically(this.agent, () => {
      if (!this.setConfigIfAbsent(sessionId, block.configKey, definition))
        return false;
      this.dropBlockRows(sessionId, block);
      return true;
    });
  }

  /** The definition, the content row and the history deleted, the change recorded: one transaction. */
  deleteBlock(sessionId: string, block: CreatedBlockRows): boolean {
    this.blockTables();
    return atomically(this.agent, () => {
      const [row] = this.agent.sql<{ key: string }>`
        SELECT key FROM assistant_config
        WHERE session_id = ${sessionId} AND key = ${block.configKey}`;
      if (!row) return false;
      this.agent.sql`DELETE FROM assistant_config
        WHERE session_id = ${sessionId} AND key = ${block.configKey}`;
      this.dropBlockRows(sessionId, block);
      return true;
    });
  }

  // --- Internal helpers ---

  /** A created block's content row and history go, and the feed hears of the change. */
  private dropBlockRows(sessionId: string, block: CreatedBlockRows): void {
    this.agent
      .sql`DELETE FROM cf_agents_context_blocks WHERE label = ${block.contextKey}`;
    this.agent.sql`DELETE FROM arbor_block_history
      WHERE session_id = ${sessionId} AND label = ${block.label}`;
    recordChange(this.agent, sessionId, "block", [block.label]);
  }

  /** The tables a created block's write touches, the change log among them. */
  private blockTables(): void {
    this.ready();
    ensureAgentSchema(this.agent);
    ensureBlockHistoryTable(this.agent);
    ensureContextBlockTable(this.agent);
  }

  private ready(): void {
    if (indexed.has(this.agent)) return;
    ensureRegistryTable(this.agent);
    // The sessions a session started: the child count of each listed row and `parentSessionId`
    // look them up by parent (a scan of every session per row without it). Here, not in
    // ensureRegistryTable: a Session that only registers itself never lists.
    try {
      this.agent.sql`CREATE INDEX IF NOT EXISTS idx_assistant_sessions_parent
        ON assistant_sessions (parent_session_id)`;
    } catch (error) {
      // A store opened read-only (`arbor` reading a file, `openSqlite(file, { readOnly })`)
      // lists without the index: slower on many sessions, the same answers, nothing written.
      if (!isReadOnlyRefusal(error)) throw error;
    }
    indexed.add(this.agent);
  }
}

/** SQLite's refusal to write a database opened read-only (`SQLITE_READONLY`). */
function isReadOnlyRefusal(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return (
    (typeof code === "string" && code.startsWith("SQLITE_READONLY")) ||
    /attempt to write a readonly database/i.test(error.message)
  );
}

// What leaves a method is Arbor's error, the store's own as its cause (sql-errors.ts).
mapSqlErrors(SqlSessionRegistry.prototype);

/** Stores whose registry table has its parent index (created once per store and process). */
const indexed = new WeakSet<object>();

/** `list()`'s parent filter as a bound number: 0 every session, 1 the top level, 2 one parent's. */
function parentMode(options: RegistryListOptions): number {
  return options.parentSessionId === undefined
    ? 0
    : options.parentSessionId === null
      ? 1
      : 2;
}
