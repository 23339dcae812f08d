import type { SessionRegistry } from "../contracts/registry.js";
import { SessionAccessError } from "../errors/index.js";
import { assertMetadataEntry } from "./metadata-limits.js";
import { assertText, requireRow } from "./session-rows.js";

/** Config keys in the registry: the owner, and one key per metadata entry. */
const OWNER_KEY = "owner";
const METADATA_PREFIX = "meta:";

/** Binds a session to an owner. Rebinding to another owner needs `force`. */
export async function setOwner(
  registry: SessionRegistry,
  sessionId: string,
  ownerId: string,
  options: { force?: boolean },
): Promise<void> {
  assertText(ownerId, "setOwner() needs the owner id");
  await requireRow(registry, sessionId);
  const current = await registry.getConfig(sessionId, OWNER_KEY);
  if (current === ownerId) return;
  if (current !== null && !options.force)
    throw new SessionAccessError("SESSION_FORBIDDEN", sessionId);
  await registry.setConfig(sessionId, OWNER_KEY, ownerId);
}

export async function getOwner(
  registry: SessionRegistry,
  sessionId: string,
): Promise<string | null> {
  return registry.getConfig(sessionId, OWNER_KEY);
}

/**
 * Throws `SessionAccessError` unless the session exists and belongs to `ownerId`, with the same
 * message whether missing or foreign, so existence does not leak.
 *
 * The owner is read first: an owner entry is deleted with its session (`deleteSession` removes
 * the session's config in the same write), so the tenant's own is proof enough that the session
 * exists, and the common check is one read. Only a refusal reads the row, to say which it is.
 */
export async function assertAccessible(
  registry: SessionRegistry,
  sessionId: string,
  ownerId: string,
): Promise<void> {
  if ((await getOwner(registry, sessionId)) === ownerId) return;
  if (!(await registry.get(sessionId)))
    throw new SessionAccessError("SESSION_NOT_FOUND", sessionId);
  throw new SessionAccessError("SESSION_FORBIDDEN", sessionId);
}

export async function setMetadata(
  registry: SessionRegistry,
  sessionId: string,
  key: string,
  value: string,
): Promise<void> {
  assertText(key, "setMetadata() needs the key");
  assertText(value, "setMetadata() needs the value");
  await requireRow(registry, sessionId);
  // Checked against the entries before the write: two writers racing may each pass alone.
  assertMetadataEntry(await listMetadata(registry, sessionId), key, value);
  await registry.setConfig(sessionId, METADATA_PREFIX + key, value);
}

export async function getMetadata(
  registry: SessionRegistry,
  sessionId: string,
  key: string,
): Promise<string | null> {
  return registry.getConfig(sessionId, METADATA_PREFIX + key);
}

/** Every metadata entry of the session, by its key. */
export async function listMetadata(
  registry: SessionRegistry,
  sessionId: string,
): Promise<Record<string, string>> {
  const entries = await registry.listConfig(sessionId, METADATA_PREFIX);
  return Object.fromEntries(
    Object.entries(entries).map(([key, value]) => [
      key.slice(METADATA_PREFIX.length),
      value,
    ]),
  );
}

/** The config entries (owner, `meta:*`) of a new session's owner and metadata, by config key. */
export function tenancyConfig(
  ownerId: string | undefined,
  metadata: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  const config: Record<string, string> = {};
  if (ownerId !== undefined) config[OWNER_KEY] = ownerId;
  for (const [key, value] of Object.entries(metadata ?? {}))
    config[METADATA_PREFIX + key] = value;
  return config;
}

/** Writes the owner (when given) and metadata of a newly registered session, entry by entry. */
export async function writeTenancy(
  registry: SessionRegistry,
  sessionId: string,
  ownerId: string | undefined,
  metadata: Record<string, string> | undefined,
): Promise<void> {
  if (ownerId !== undefined)
    await registry.setConfig(sessionId, OWNER_KEY, ownerId);
  for (const [key, value] of Object.entries(metadata ?? {})) {
    await registry.setConfig(sessionId, METADATA_PREFIX + key, value);
  }
}
