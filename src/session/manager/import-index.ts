/**
 * The import index (docs/formats.md, "Re-imports"): where each imported source conversation went,
 * which ones were erased, and the import route's idempotency records. It lives in the registry's
 * per-session config under a reserved id that no session has, so every backend keeps it without
 * a table of its own. Keys are hashes (the formats module hashes the owner and the source
 * identity), so the index never holds a conversation's id or content in the clear.
 */
import type { SessionRegistry } from "../contracts/registry.js";

/** The reserved config owner of the index: not a session id (those are UUIDs or user ids). */
const INDEX_ID = "arbor/import-index";

/** The session metadata key that holds a session's hashed import identity. */
export const IMPORT_KEY_METADATA = "import.key";

/**
 * The session metadata key that holds when an import wrote the session (ISO 8601 UTC). An imported
 * conversation keeps its own dates; this one is the time it entered this store, from which
 * retention counts (`prune({ olderThan })`, docs/behavior/erase-and-retention.md#prune).
 */
export const IMPORTED_AT_METADATA = "import.importedAt";

/** The config key of session metadata (tenancy.ts writes metadata under `meta:`). */
const METADATA_CONFIG_KEY = `meta:${IMPORT_KEY_METADATA}`;

/** Reads and writes of the import index of one store. */
export class ImportIndex {
  constructor(private readonly registry: SessionRegistry) {}

  /** The session a source was imported into, if it still exists and still carries that key. */
  async findSession(key: string): Promise<string | null> {
    const sessionId = await this.registry.getConfig(INDEX_ID, `source:${key}`);
    if (!sessionId || !(await this.registry.get(sessionId))) return null;
    const current = await this.registry.getConfig(
      sessionId,
      METADATA_CONFIG_KEY,
    );
    return current === key ? sessionId : null;
  }

  async recordSession(key: string, sessionId: string): Promise<void> {
    await this.registry.setConfig(INDEX_ID, `source:${key}`, sessionId);
  }

  /**
   * Remembers that the session `childId` belongs to the source `parentKey` (a subagent file that
   * names its session): `linkChildren()` links it when that source is imported, now or later.
   */
  async rememberChild(parentKey: string, childId: string): Promise<void> {
    const children = await this.childrenOf(parentKey);
    if (children.includes(childId)) return;
    await this.registry.setConfig(INDEX_ID, "children", "1");
    await this.registry.setConfig(
      INDEX_ID,
      `children:${parentKey}`,
      JSON.stringify([...children, childId]),
    );
  }

  /** Whether any child was ever remembered: an import of no subagent files looks no further. */
  async hasChildren(): Promise<boolean> {
    return (await this.registry.getConfig(INDEX_ID, "children")) === "1";
  }

  /**
   * Sets the `parent_session_id` of every remembered child of the source `parentKey` that still
   * exists to `parentId`; returns how many changed.
   */
  async linkChildren(parentKey: string, parentId: string): Promise<number> {
    const children = await this.childrenOf(parentKey);
    const alive: string[] = [];
    let linked = 0;
    for (const childId of children) {
      const child = await this.registry.get(childId);
      if (!child) continue;
      alive.push(childId);
      if (child.parent_session_id === parentId || childId === parentId)
        continue;
      await this.registry.update(childId, { parent_session_id: parentId });
      linked++;
    }
    // Children erased or replaced since go, so the list stays as long as the living ones.
    if (alive.length !== children.length)
      await this.registry.setConfig(
        INDEX_ID,
        `children:${parentKey}`,
        JSON.stringify(alive),
      );
    return linked;
  }

  private async childrenOf(parentKey: string): Promise<string[]> {
    const value = await this.registry.getConfig(
      INDEX_ID,
      `children:${parentKey}`,
    );
    if (!value) return [];
    try {
      const list: unknown = JSON.parse(value);
      return Array.isArray(list)
        ? list.filter((id): id is string => typeof id === "string")
        : [];
    } catch {
      return [];
    }
  }

  /** When the session imported from this source was erased, or `null`. */
  async erasedAt(key: string): Promise<string | null> {
    const value = await this.registry.getConfig(INDEX_ID, `erased:${key}`);
    return value === "" ? null : value;
  }

  /** Forgets the tombstone (an import that was asked to bring the conversation back). */
  async clearErased(key: string): Promise<void> {
    await this.registry.setConfig(INDEX_ID, `erased:${key}`, "");
  }

  /** A stored idempotency record, or `null`. */
  async idempotent(key: string): Promise<string | null> {
    const value = await this.registry.getConfig(INDEX_ID, `idempotency:${key}`);
    return value === "" ? null : value;
  }

  async recordIdempotent(key: string, value: string): Promise<void> {
    await this.registry.setConfig(INDEX_ID, `idempotency:${key}`, value);
  }

  /**
   * Stores `value` under `key` only when nothing is stored there yet; answers whether it did.
   * Atomic across processes when the registry declares `setConfigIfAbsent`; over a registry
   * without it, a read and a write (atomic within one process only).
   */
  async claimIdempotent(key: string, value: string): Promise<boolean> {
    const configKey = `idempotency:${key}`;
    if (this.registry.setConfigIfAbsent)
      return this.registry.setConfigIfAbsent(INDEX_ID, configKey, value);
    if ((await this.registry.getConfig(INDEX_ID, configKey)) !== null)
      return false;
    await this.registry.setConfig(INDEX_ID, configKey, value);
    return true;
  }
}

/**
 * Before a whole session is erased: its import key, if it was imported. After the erase the
 * caller passes it to `rememberErased`, so a later import of the same source is skipped.
 */
export async function importKeyOf(
  registry: SessionRegistry,
  sessionId: string,
): Promise<string | null> {
  const key = await registry.getConfig(sessionId, METADATA_CONFIG_KEY);
  return key === null || key === "" ? null : key;
}

/** Leaves the erased session's hashed identity as a tombstone. */
export async function rememberErased(
  registry: SessionRegistry,
  key: string,
  erasedAt: string,
): Promise<void> {
  await registry.setConfig(INDEX_ID, `erased:${key}`, erasedAt);
  await registry.setConfig(INDEX_ID, `source:${key}`, "");
}
