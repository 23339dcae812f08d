import {
  sessionInfoFromRow,
  type SessionInfoRow,
} from "../../session/messages/stored-rows.js";
import { invalidArgument } from "../../session/errors/index.js";
import type {
  PostgresClient,
  PostgresExecutor,
  PostgresQueryable,
} from "./postgres-client.js";
import { postgresExecutor } from "./postgres-executor.js";
import {
  LOCKED_WRITE_PREFIX,
  lockedWriteParams,
  sessionWrite,
  type WriteAttempt,
} from "./postgres-locking.js";
import { readConfig, writeConfig } from "./postgres-config.js";
import { postgresSettings } from "./postgres-settings.js";
import {
  insertSessionRow,
  registryTimestamp,
  TIMESTAMP_PARAM,
} from "./postgres-registry-row.js";
import {
  isoSql,
  RECORD_CHANGE_SQL,
  sessionScopeSql,
  JSON_PARAM,
  TEXT_ARRAY_SQL,
  toCount,
} from "./postgres-sql.js";
import type { SessionInfo } from "../../session/contracts/session-info.js";
import type { SearchResult } from "../../session/contracts/types.js";
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

/**
 * The SessionManager registry on PostgreSQL (docs/behavior/manager.md, docs/behavior/storage.md): rows in `assistant_sessions`,
 * per-session config (owner, metadata) in `assistant_config`, both created by
 * `applyPostgresSchema()` (never implicitly). Takes a `pg` Pool or Client or an `execute`-style
 * connection, like the providers, and shares their executor.
 *
 * Every write is one statement, so it is atomic on every connection kind; `deleteSession` holds
 * the session's advisory lock (see `deleteSession`). Timestamps are `timestamptz` truncated to
 * milliseconds and read back as ISO-8601 UTC with milliseconds, so `list()`'s order and its
 * keyset continuation match `compareListOrder` exactly.
 */
export class PostgresSessionRegistry implements SessionRegistry {
  readonly #db: PostgresExecutor;

  constructor(client: PostgresClient) {
    this.#db = postgresExecutor(client);
  }

  async insert(info: SessionInfo): Promise<void> {
    await this.#ready();
    await insertSessionRow(this.#db, info, "");
  }

  /**
   * The row and its config entries in one statement (the row's insert feeds the entries'), so
   * it is atomic over every connection kind: all or nothing, and never seen half written.
   */
  async insertWithConfig(
    info: SessionInfo,
    config: Readonly<Record<string, string>>,
  ): Promise<void> {
    await this.#ready();
    await insertSessionRow(this.#db, info, "", JSON.stringify(config));
  }

  async get(id: string): Promise<SessionInfo | null> {
    await this.#ready();
    const [row] = await this.#db.query<SessionInfoRow>(
      `SELECT ${COLUMNS} FROM assistant_sessions AS s WHERE s.id = ?`,
      [id],
    );
    return row ? sessionInfoFromRow(row) : null;
  }

  async getMany(ids: readonly string[]): Promise<SessionInfo[]> {
    await this.#ready();
    const rows = await this.#db.query<SessionInfoRow>(
      `SELECT ${COLUMNS} FROM assistant_sessions AS s WHERE s.id = ANY(${TEXT_ARRAY_SQL})`,
      [JSON.stringify(ids)],
    );
    return rows.map(sessionInfoFromRow);
  }

  async openings(messages: ReadonlyArray<MessageRef>): Promise<MessageRef[]> {
    await this.#ready();
    // One lookup per message on the (session_id, id) key.
    const rows = await this.#db.query<{ session_id: string; id: string }>(
      `SELECT m.session_id, m.id FROM json_array_elements(${JSON_PARAM}) AS ref
      JOIN assistant_messages AS m ON m.session_id = ref->>0 AND m.id = ref->>1
      WHERE m.parent_id IS NULL`,
      [JSON.stringify(messages.map((m) => [m.sessionId, m.id]))],
    );
    return rows.map((row) => ({ sessionId: row.session_id, id: row.id }));
  }

  async list(options: RegistryListOptions): Promise<SessionInfo[]> {
    await this.#ready();
    const { sql, params } = listQuery(options);
    return (await this.#db.query<SessionInfoRow>(sql, params)).map(
      sessionInfoFromRow,
    );
  }

  /** The page of `list()` with owner, metadata and message count per row, in one statement. */
  async listDetailed(options: RegistryListOptions): Promise<SessionListing[]> {
    await this.#ready();
    // The page is cut first, so the per-row lookups (by primary key, and a COUNT over the
    // `(session_id, id)` key) run only for the rows listed.
    const { sql, params } = listQuery(options);
    const rows = await this.#db.query<
      SessionInfoRow & {
        owner_id: string | null;
        metadata: string | null;
        message_count: string | number;
        child_count: string | number;
      }
    >(
      `SELECT page.*,
        (SELECT c.value FROM assistant_config AS c
          WHERE c.session_id = page.id AND c.key = 'owner') AS owner_id,
        (SELECT json_object_agg(substr(c.key, ${METADATA_PREFIX.length + 1}), c.value
            ORDER BY c.key COLLATE "C")::text
          FROM assistant_config AS c
          WHERE c.session_id = page.id
            AND left(c.key, ${METADATA_PREFIX.length}) = '${METADATA_PREFIX}') AS metadata,
        (SELECT count(*) FROM assistant_messages AS m
          WHERE m.session_id = page.id) AS message_count,
        (SELECT count(*) FROM assistant_sessions AS k
          WHERE k.parent_session_id = page.id${
            options.ownerId !== undefined
              ? ` AND EXISTS (SELECT 1 FROM assistant_config AS c
                  WHERE c.session_id = k.id AND c.key = 'owner' AND c.value = ?)`
              : ""
          }) AS child_count
      FROM (${sql}) AS page`,
      // The child count's owner comes before the page's parameters, as its `?` does.
      options.ownerId !== undefined ? [options.ownerId, ...params] : params,
    );
    // The outer query keeps no order of its own: the page's, restored by the same comparator.
    const listings = rows.map((row) => ({
      info: sessionInfoFromRow(row),
      ownerId: row.owner_id ?? null,
      metadata: row.metadata
        ? (JSON.parse(row.metadata) as Record<string, string>)
        : {},
      messageCount: toCount(row.message_count),
      childCount: toCount(row.child_count),
    }));
    return listings.sort((a, b) => compareListOrder(a.info, b.info));
  }

  async update(id: string, patch: SessionInfoPatch): Promise<boolean> {
    await this.#ready();
    const sets: string[] = [];
    const params: unknown[] = [];
    for (const field of PATCHABLE) {
      const value = patch[field];
      if (value === undefined) continue;
      if (field === "updated_at") {
        sets.push(`updated_at = ${TIMESTAMP_PARAM}`);
        params.push(registryTimestamp(value, field));
      } else {
        sets.push(`${field} = ?`);
        params.push(value);
      }
    }
    const rows = await this.#db.query(
      `UPDATE assistant_sessions SET ${sets.length > 0 ? sets.join(", ") : "id = id"}
      WHERE id = ? RETURNING id`,
      [...params, id],
    );
    return rows.length > 0;
  }

  /**
   * One statement: concurrent calls from any number of instances all add up. Token counts are
   * whole numbers in the table (`BIGINT`); fractions are rounded.
   */
  async addUsage(
    id: string,
    inputTokens: number,
    outputTokens: number,
    cost: number,
    at: string,
  ): Promise<boolean> {
    await this.#ready();
    const rows = await this.#db.query(
      `UPDATE assistant_sessions
      SET input_tokens = input_tokens + ?::numeric, output_tokens = output_tokens + ?::numeric,
        estimated_cost = estimated_cost + ?::double precision, updated_at = ${TIMESTAMP_PARAM}
      WHERE id = ? RETURNING id`,
      [inputTokens, outputTokens, cost, registryTimestamp(at, "at"), id],
    );
    return rows.length > 0;
  }

  async touch(id: string, at: string): Promise<void> {
    await this.#ready();
    await this.#db.query(
      `UPDATE assistant_sessions SET updated_at = ${TIMESTAMP_PARAM} WHERE id = ?`,
      [registryTimestamp(at, "at"), id],
    );
  }

  async count(): Promise<number> {
    await this.#ready();
    const [row] = await this.#db.query<{ count: string }>(
      "SELECT count(*) AS count FROM assistant_sessions",
    );
    return toCount(row?.count);
  }

  async getConfig(sessionId: string, key: string): Promise<string | null> {
    await this.#ready();
    return readConfig(this.#db, sessionId, key);
  }

  async setConfig(
    sessionId: string,
    key: string,
    value: string,
  ): Promise<void> {
    await this.#ready();
    await writeConfig(this.#db, sessionId, key, value);
  }

  async setConfigIfAbsent(
    sessionId: string,
    key: string,
    value: string,
  ): Promise<boolean> {
    await this.#ready();
    const inserted = await this.#db.query<{ key: string }>(
      `INSERT INTO assistant_config (session_id, key, value) VALUES (?, ?, ?)
      ON CONFLICT (session_id, key) DO NOTHING RETURNING key`,
      [sessionId, key, value],
    );
    return inserted.length > 0;
  }

  async listConfig(
    sessionId: string,
    prefix: string,
  ): Promise<Record<string, string>> {
    await this.#ready();
    const rows = await this.#db.query<{ key: string; value: string }>(
      `SELECT key, value FROM assistant_config
      WHERE session_id = ? AND left(key, length(?::text)) = ?::text
      ORDER BY key COLLATE "C"`,
      [sessionId, prefix, prefix],
    );
    return Object.fromEntries(rows.map((row) => [row.key, row.value]));
  }

  /**
   * The message search of `PostgresSessionProvider.searchMessages` (same matching and order),
   * over the messages of registered sessions only, optionally of `sessionIds` and of sessions
   * owned by `ownerId`.
   */
  async search(
    query: string,
    options: RegistrySearchOptions,
  ): Promise<SearchResult[]> {
    const { textSearchConfig } = await this.#ready();
    const listed = sessionScopeSql("m.session_id", {
      ...(options.sessionIds ? { sessionIds: options.sessionIds } : {}),
    });
    const owned = sessionScopeSql("m.session_id", {
      ...(options.ownerId !== undefined ? { ownerId: options.ownerId } : {}),
    });
    // Registered and owned are probes, checked row by row in the order the search reads its
    // matches (a late check): a join would hash the whole registry on every search (about 3 ms
    // at 10,000 sessions, growing with them). The search loads on its first use, as the
    // provider's does (postgres-session-provider.ts).
    const { searchMessageRows } = await import("./postgres-search.js");
    return searchMessageRows(
      this.#db,
      textSearchConfig,
      query,
      options.limit,
      {
        sql:
          listed.conditions.length > 0
            ? listed.conditions.join(" AND ")
            : "TRUE",
        params: listed.params,
        late: {
          sql: [
            "(SELECT TRUE FROM assistant_sessions AS s WHERE s.id = m.session_id)",
            ...owned.conditions,
          ].join(" AND "),
          params: owned.params,
        },
      },
      options,
    );
  }

  /** Overlays whose summary matches the query, newest first (explained manager search). */
  async searchSummaries(
    query: string,
    options: RegistrySearchOptions,
  ): Promise<SummaryHit[]> {
    await this.#ready();
    // Only explained search reads summaries: loaded on its first use.
    const { searchSummaryRows } = await import("./postgres-summary-search.js");
    return searchSummaryRows(this.#db, query, options);
  }

  /**
   * Deletes the registry row and every row of the session in one statement that holds the
   * session's advisory lock, the lock appends, deletes and clears take. Over a Pool or Client it
   * runs in a transaction that takes the lock first, so the statement sees everything committed
   * before it; over an `execute`-style connection it is gated by the session's fingerprint and
   * retried when a write slipped in (`sessionWrite`). The other deletes only run when the
   * registry row was deleted: `false` and nothing deleted without one.
   */
  async deleteSession(
    id: string,
    contextKeys: readonly string[],
  ): Promise<boolean> {
    await this.#ready();
    return sessionWrite(this.#db, id, (db, fingerprint) =>
      deleteSessionRows(db, id, contextKeys, fingerprint),
    );
  }

  /**
   * Claims a created block's definition, drops what an earlier block of the label left and
   * records the `block` change, in one statement under the session lock (`sessionWrite`, as
   * `deleteSession`), so the change commits in the session's order.
   */
  async createBlock(
    sessionId: string,
    block: CreatedBlockRows,
    definition: string,
  ): Promise<boolean> {
    await this.#ready();
    return sessionWrite(this.#db, sessionId, (db, fingerprint) =>
      blockWrite(db, sessionId, block, fingerprint, {
        sql: `INSERT INTO assistant_config (session_id, key, value)
          SELECT ?, ?, ? WHERE (SELECT ok FROM checked)
          ON CONFLICT (session_id, key) DO NOTHING RETURNING key`,
        params: [sessionId, block.configKey, definition],
      }),
    );
  }

  /** Deletes a created block's definition, content row and history, with its change: one statement. */
  async deleteBlock(
    sessionId: string,
    block: CreatedBlockRows,
  ): Promise<boolean> {
    await this.#ready();
    return sessionWrite(this.#db, sessionId, (db, fingerprint) =>
      blockWrite(db, sessionId, block, fingerprint, {
        sql: `DELETE FROM assistant_config
          WHERE session_id = ? AND key = ? AND (SELECT ok FROM checked) RETURNING key`,
        params: [sessionId, block.configKey],
      }),
    );
  }

  // --- Internal helpers ---

  #ready() {
    return postgresSettings(this.#db);
  }
}

// --- Internal helpers ---

const COLUMNS = `s.id, s.name, s.parent_session_id, s.model, s.source, s.input_tokens,
  s.output_tokens, s.estimated_cost, s.end_reason, ${isoSql("s.created_at")} AS created_at,
  ${isoSql("s.updated_at")} AS updated_at`;

const PATCHABLE = [
  "name",
  "parent_session_id",
  "end_reason",
  "model",
  "source",
  "updated_at",
] as const satisfies ReadonlyArray<keyof SessionInfoPatch>;

/** The config key prefix of metadata entries (the manager's `meta:`). */
const METADATA_PREFIX = "meta:";

/** The statement of a `list()` page. */
function listQuery(options: RegistryListOptions): {
  sql: string;
  params: unknown[];
} {
  const conditions: string[] = [];
  const params: unknown[] = [];
  if (options.ownerId !== undefined) {
    conditions.push(`EXISTS (SELECT 1 FROM assistant_config AS c
      WHERE c.session_id = s.id AND c.key = 'owner' AND c.value = ?)`);
    params.push(options.ownerId);
  }
  if (options.parentSessionId === null) {
    // The top level: no parent, or a parent the listing does not hold (erased, another owner's).
    conditions.push(`(s.parent_session_id IS NULL OR NOT EXISTS (
      SELECT 1 FROM assistant_sessions AS p WHERE p.id = s.parent_session_id${
        options.ownerId !== undefined
          ? ` AND EXISTS (SELECT 1 FROM assistant_config AS c
              WHERE c.session_id = p.id AND c.key = 'owner' AND c.value = ?)`
          : ""
      }))`);
    if (options.ownerId !== undefined) params.push(options.ownerId);
  } else if (options.parentSessionId !== undefined) {
    conditions.push("s.parent_session_id = ?");
    params.push(options.parentSessionId);
  }
  const after = options.after;
  if (after) {
    const updated = cursorTimestamp(after.updated_at);
    const created = cursorTimestamp(after.created_at);
    // The keyset of ORDER BY updated_at DESC, created_at DESC, id ASC (byte order, like JS).
    conditions.push(`(s.updated_at < ${TIMESTAMP_PARAM}
      OR (s.updated_at = ${TIMESTAMP_PARAM} AND (s.created_at < ${TIMESTAMP_PARAM}
        OR (s.created_at = ${TIMESTAMP_PARAM} AND s.id COLLATE "C" > ?::text))))`);
    params.push(updated, updated, created, created, after.id);
  }
  let sql = `SELECT ${COLUMNS} FROM assistant_sessions AS s
    ${conditions.length > 0 ? `WHERE ${conditions.join(" AND ")}` : ""}
    ORDER BY s.updated_at DESC, s.created_at DESC, s.id COLLATE "C" ASC`;
  if (options.limit !== undefined) {
    sql += " LIMIT ?";
    params.push(Math.max(0, Math.floor(options.limit)));
  }
  return { sql, params };
}

function cursorTimestamp(value: string): string {
  const time = Date.parse(value);
  if (Number.isNaN(time)) {
    throw invalidArgument(
      "Invalid list cursor; pass the nextCursor of listPage()",
    );
  }
  return new Date(time).toISOString();
}

/**
 * One attempt of `deleteSession`: the registry row first, then (only if it was there) messages,
 * overlays, config, block history, change-log rows and the context rows under `contextKeys`, all in one
 * statement under the session lock (`LOCKED_WRITE_PREFIX`). Resolves to whether the row existed.
 */
async function deleteSessionRows(
  db: PostgresQueryable,
  id: string,
  contextKeys: readonly string[],
  fingerprint: string | null,
): Promise<WriteAttempt<boolean>> {
  const [result] = await db.query<{ ok: boolean; deleted: string | number }>(
    `WITH ${LOCKED_WRITE_PREFIX},
    registry AS (
      DELETE FROM assistant_sessions WHERE id = ? AND (SELECT ok FROM checked) RETURNING id
    ),
    messages AS (
      DELETE FROM assistant_messages WHERE session_id = ? AND EXISTS (SELECT 1 FROM registry)
    ),
    overlays AS (
      DELETE FROM assistant_compactions WHERE session_id = ? AND EXISTS (SELECT 1 FROM registry)
    ),
    config AS (
      DELETE FROM assistant_config WHERE session_id = ? AND EXISTS (SELECT 1 FROM registry)
    ),
    history AS (
      DELETE FROM arbor_block_history WHERE session_id = ? AND EXISTS (SELECT 1 FROM registry)
    ),
    changes AS (
      DELETE FROM arbor_changes WHERE session_id = ? AND EXISTS (SELECT 1 FROM registry)
    ),
    blocks AS (
      DELETE FROM cf_agents_context_blocks
      WHERE label = ANY(${TEXT_ARRAY_SQL}) AND EXISTS (SELECT 1 FROM registry)
    )
    SELECT (SELECT ok FROM checked) AS ok, (SELECT count(*) FROM registry) AS deleted`,
    [
      ...lockedWriteParams(id, fingerprint),
      id,
      id,
      id,
      id,
      id,
      id,
      JSON.stringify(contextKeys),
    ],
  );
  if (!result?.ok) return { done: false };
  return { done: true, value: toCount(result.deleted) > 0 };
}

/**
 * One attempt of a created block's write: `definition` (a statement on its config entry that
 * returns the key when it wrote), then, only if it wrote, the label's content row and history
 * deleted and a `block` change recorded, all in one statement under the session lock.
 */
async function blockWrite(
  db: PostgresQueryable,
  sessionId: string,
  block: CreatedBlockRows,
  fingerprint: string | null,
  definition: { sql: string; params: unknown[] },
): Promise<WriteAttempt<boolean>> {
  const [result] = await db.query<{ ok: boolean; written: string | number }>(
    `WITH ${LOCKED_WRITE_PREFIX},
    definition AS (${definition.sql}),
    content AS (
      DELETE FROM cf_agents_context_blocks
      WHERE label = ? AND EXISTS (SELECT 1 FROM definition)
    ),
    history AS (
      DELETE FROM arbor_block_history
      WHERE session_id = ? AND label = ? AND EXISTS (SELECT 1 FROM definition)
    ),
    logged AS (
      SELECT ${RECORD_CHANGE_SQL} AS change WHERE EXISTS (SELECT 1 FROM definition)
    )
    SELECT (SELECT ok FROM checked) AS ok, (SELECT count(*) FROM definition) AS written,
      (SELECT count(*) FROM logged) AS logged`,
    [
      ...lockedWriteParams(sessionId, fingerprint),
      ...definition.params,
      block.contextKey,
      sessionId,
      block.label,
      sessionId,
      "block",
      JSON.stringify([block.label]),
    ],
  );
  if (!result?.ok) return { done: false };
  return { done: true, value: toCount(result.written) > 0 };
}
