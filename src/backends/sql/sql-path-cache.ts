import type { SqlProvider } from "../../session/contracts/sql-provider.js";
import type { SplitContent } from "./sql-message-chunks.js";
import type { PathMessages } from "./sql-path.js";
import {
  decodeRawPath,
  loadPathMessages,
  pathIdSet,
  readPath,
  type RawPath,
} from "./sql-path-read.js";

/**
 * Paths longer than this (in characters of stored JSON, 4–8 MB of strings) are not kept, so a
 * long-lived Session never holds more. Below it, a re-read of the active branch costs the decode
 * alone (about 9 ms at 10,000 short messages against 32 ms read afresh); above it, keeping the
 * text raised a read's peak memory above the reference's (docs/benchmarks.md#memory).
 */
const MAX_CACHED_CHARS = 4_000_000;

/** Paths with more ids than this keep no id set (a few MB of strings at most). */
const MAX_CACHED_IDS = 200_000;

const tokenUnsupported = new WeakSet<object>();

/**
 * Keeps the last path read (as its raw stored text, up to `MAX_CACHED_CHARS`) while the database
 * is unchanged, and extends it when this provider appends onto its leaf, so re-reading the active
 * branch between appends skips the queries and costs the JSON.parse alone. "Unchanged" is a token of
 * `total_changes()` (every row written on this connection, raw SQL included) and
 * `PRAGMA data_version` (commits by other connections); a store without them is not cached.
 */
export class PathCache {
  private entry: { leafId: string; token: string; raw: RawPath } | null = null;
  /** The ids of the last path asked for as a set (explained search), kept by the same rules. */
  private ids: { leafId: string; token: string; set: Set<string> } | null =
    null;

  constructor(
    private readonly agent: SqlProvider,
    private readonly sessionId: string,
  ) {}

  read(leafId: string): PathMessages {
    const token = changeToken(this.agent);
    if (
      token !== null &&
      this.entry?.leafId === leafId &&
      this.entry.token === token
    ) {
      const decoded = decodeRawPath(this.entry.raw);
      if (decoded) return decoded;
    }
    const read = readPath(
      this.agent,
      this.sessionId,
      leafId,
      token === null ? 0 : MAX_CACHED_CHARS,
    );
    if (!read) {
      this.entry = null;
      return loadPathMessages(this.agent, this.sessionId, leafId);
    }
    this.entry =
      read.raw && token !== null ? { leafId, token, raw: read.raw } : null;
    return read.path;
  }

  /**
   * The ids on the path to `leafId`: the kept set, or the kept path's ids, while the database is
   * unchanged; else walked over the links alone and kept.
   */
  idSet(leafId: string): ReadonlySet<string> {
    const token = changeToken(this.agent);
    if (
      token !== null &&
      this.ids?.leafId === leafId &&
      this.ids.token === token
    )
      return this.ids.set;
    const entry = this.entry;
    const set =
      token !== null &&
      entry?.leafId === leafId &&
      entry.token === token &&
      entry.raw
        ? new Set(entry.raw.rootFirstIds)
        : pathIdSet(this.agent, this.sessionId, leafId);
    this.ids =
      token !== null && set.size > 0 && set.size <= MAX_CACHED_IDS
        ? { leafId, token, set }
        : null;
    return set;
  }

  /** Whether a path or id set is kept (then a write reads the change token around it). */
  get keepsAnything(): boolean {
    return this.entry !== null || this.ids !== null;
  }

  /**
   * Before a write this provider makes (an append's insert, a search's index catch-up): the change
   * token when something is kept (the write may keep it), else `null` and no query.
   */
  tokenBeforeWrite(): string | null {
    return this.entry || this.ids ? changeToken(this.agent) : null;
  }

  /**
   * After a write that touched the search index alone (a search's catch-up), run synchronously
   * since `before`: what was kept still describes the tree, so it takes the new token. Only when
   * no other connection committed meanwhile (`data_version`, the token's second half, unchanged).
   */
  noteIndexWrite(before: string | null): void {
    if (before === null) return;
    const after = changeToken(this.agent);
    if (after === null || after === before) return;
    if (after.split(":")[1] !== before.split(":")[1]) return this.clear();
    if (this.entry?.token === before) this.entry.token = after;
    if (this.ids?.token === before) this.ids.token = after;
  }

  /**
   * Inside the same transaction, after this provider inserted `id` (stored as `json`) under
   * `parentId`: extends the kept path when it ended at the parent and nothing else changed the
   * database since it was read (`before` still equals its token), else drops it. The new token is
   * read before the commit, so a commit by another process right after ours cannot slip into it.
   */
  noteAppend(
    before: string | null,
    id: string,
    json: string,
    parentId: string | null,
    split: SplitContent,
  ): void {
    const entry = this.entry;
    const { raw } = entry ?? {};
    const keepPath =
      entry !== null &&
      raw !== undefined &&
      before !== null &&
      before === entry.token &&
      entry.leafId === parentId &&
      split.chunkedBytes === null &&
      raw.chars + json.length <= MAX_CACHED_CHARS;
    const ids = this.ids;
    const keepIds =
      ids !== null &&
      before !== null &&
      before === ids.token &&
      ids.leafId === parentId &&
      ids.set.size < MAX_CACHED_IDS;
    const token = keepPath || keepIds ? changeToken(this.agent) : null;
    if (keepPath && token !== null) {
      raw.rootFirstIds.push(id);
      const text = `[${json}]`;
      raw.segments.push({ text });
      raw.chars += text.length;
      this.entry = { leafId: id, token, raw };
    } else this.entry = null;
    // The set grows in place: a caller still holding it sees a message that is on the path now.
    if (keepIds && token !== null) {
      ids.set.add(id);
      this.ids = { leafId: id, token, set: ids.set };
    } else this.ids = null;
  }

  clear(): void {
    this.entry = null;
    this.ids = null;
  }
}

/**
 * `total_changes()` and `PRAGMA data_version` in one statement. A host that forbids pragmas
 * (Durable Objects, which have a single connection) gets `total_changes()` alone from then on;
 * any other failure gives `null` for this call, so nothing is cached on a guess.
 */
function changeToken(agent: SqlProvider): string | null {
  if (tokenUnsupported.has(agent)) return null;
  if (!pragmaForbidden.has(agent)) {
    try {
      const [row] = agent.sql<{ changes: number; version: number }>`
        SELECT total_changes() AS changes, data_version AS version FROM pragma_data_version()`;
      return `${Number(row?.changes ?? 0)}:${Number(row?.version ?? 0)}`;
    } catch (error) {
      if (!FORBIDDEN.test(String((error as Error)?.message))) return null;
      pragmaForbidden.add(agent);
    }
  }
  try {
    const [row] = agent.sql<{
      changes: number;
    }>`SELECT total_changes() AS changes`;
    return `${Number(row?.changes ?? 0)}:0`;
  } catch {
    tokenUnsupported.add(agent);
    return null;
  }
}

const FORBIDDEN = /not authorized|SQLITE_AUTH|not allowed|prohibited/i;
const pragmaForbidden = new WeakSet<object>();
