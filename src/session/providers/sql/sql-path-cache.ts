import type { SqlProvider } from "../../contracts/sql-provider.js";
import {
  decodeRawPath,
  loadPathMessages,
  queryRawPath,
  type PathMessages,
  type RawPath,
} from "./sql-path.js";

/** Paths longer than this (in characters of stored JSON) are not kept. */
const MAX_CACHED_CHARS = 16_000_000;

const tokenUnsupported = new WeakSet<object>();

/**
 * Keeps the last path read (as its raw stored text) while the database is unchanged, and extends
 * it when this provider appends onto its leaf, so re-reading the active branch between appends
 * skips the recursive query and costs one JSON.parse. "Unchanged" is a token of
 * `total_changes()` (every row written on this connection, raw SQL included) and
 * `PRAGMA data_version` (commits by other connections); a store without them is not cached.
 */
export class PathCache {
  private entry: { leafId: string; token: string; raw: RawPath } | null = null;

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
    const raw = queryRawPath(this.agent, this.sessionId, leafId);
    const decoded = raw ? decodeRawPath(raw) : null;
    if (!raw || !decoded) {
      this.entry = null;
      return loadPathMessages(this.agent, this.sessionId, leafId);
    }
    this.entry =
      // A path holding a message split over continuation rows is large: not kept.
      token !== null &&
      raw.leafFirstJson.length <= MAX_CACHED_CHARS &&
      raw.whole === undefined
        ? { leafId, token, raw }
        : null;
    return decoded;
  }

  /** After this provider appended `id` (stored as `json`) under `parentId`. */
  appended(id: string, json: string, parentId: string | null): void {
    const entry = this.entry;
    if (!entry || entry.leafId !== parentId) {
      this.entry = null;
      return;
    }
    const token = changeToken(this.agent);
    // Exactly one row more than when the path was read: nobody else wrote in between.
    if (token === null || token !== nextToken(entry.token)) {
      this.entry = null;
      return;
    }
    entry.raw.rootFirstIds.push(id);
    this.entry = {
      leafId: id,
      token,
      raw: {
        leafFirstJson: `${json},${entry.raw.leafFirstJson}`,
        rootFirstIds: entry.raw.rootFirstIds,
      },
    };
  }

  clear(): void {
    this.entry = null;
  }
}

function changeToken(agent: SqlProvider): string | null {
  if (tokenUnsupported.has(agent)) return null;
  try {
    const [changes] = agent.sql<{
      changes: number;
    }>`SELECT total_changes() AS changes`;
    let version = 0;
    try {
      const [row] = agent.sql<{
        version: number;
      }>`SELECT data_version AS version FROM pragma_data_version()`;
      version = Number(row?.version ?? 0);
    } catch {
      // Some hosts (Durable Objects) forbid pragmas; they also have a single connection.
    }
    return `${Number(changes?.changes ?? 0)}:${version}`;
  } catch {
    tokenUnsupported.add(agent);
    return null;
  }
}

function nextToken(token: string): string {
  const [changes, version] = token.split(":");
  return `${Number(changes) + 1}:${version}`;
}
