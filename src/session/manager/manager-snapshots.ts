import { assertMetadata } from "./metadata-limits.js";
import type {
  SessionInfo,
  SessionSnapshot,
} from "../contracts/session-info.js";
import { SessionAccessError } from "../errors/index.js";
import {
  assertSnapshot,
  signSnapshot,
  verifySnapshot,
} from "../snapshot/snapshot.js";
import type { ManagerHost } from "./manager-backend.js";
import {
  createdBlockEntries,
  defineCreatedBlocks,
} from "./created-blocks-copy.js";
import type { ImportSessionOptions } from "./manager-options.js";
import { requireRow, sessionExists } from "./session-rows.js";
import { getOwner, listMetadata, writeTenancy } from "./tenancy.js";

/** The whole session with its registry row, owner and metadata; signed when a key is given. */
export async function exportSession(
  host: ManagerHost,
  sessionId: string,
  snapshotKey: string | undefined,
): Promise<SessionSnapshot> {
  const info = await requireRow(host.registry, sessionId);
  const snapshot = await host.getSession(sessionId).exportSnapshot();
  const owner = await getOwner(host.registry, sessionId);
  const metadata = await listMetadata(host.registry, sessionId);
  const full: SessionSnapshot = {
    ...snapshot,
    info,
    ...(owner !== null ? { ownerId: owner } : {}),
    metadata,
  };
  if (snapshotKey) full.signature = await signSnapshot(full, snapshotKey);
  return full;
}

/**
 * Restores an exported session: same id (or a fresh one with `newId`), messages, overlays,
 * blocks, prompt, owner and metadata. With a key, the signature must match. An existing id, or a
 * snapshot of another owner without `rebind`, throws and writes nothing.
 */
export async function importSession(
  host: ManagerHost,
  snapshot: SessionSnapshot,
  options: ImportSessionOptions,
  snapshotKey: string | undefined,
): Promise<SessionInfo> {
  assertSnapshot(snapshot);
  if (snapshotKey) await verifySnapshot(snapshot, snapshotKey);
  const id =
    options.id ?? (options.newId ? crypto.randomUUID() : snapshot.sessionId);
  if (await host.registry.get(id)) throw sessionExists(id);
  if (
    snapshot.ownerId !== undefined &&
    options.ownerId !== undefined &&
    snapshot.ownerId !== options.ownerId &&
    !options.rebind
  ) {
    throw new SessionAccessError("SESSION_FORBIDDEN", id);
  }
  if (snapshot.metadata !== undefined)
    assertMetadata(snapshot.metadata, "importSession()");
  const created = createdBlockEntries(snapshot);
  const info = importedInfo(snapshot, id, options.name);
  try {
    await host.registry.insert(info);
  } catch (error) {
    // Another import took the id since the check: the key's own error differs per driver.
    if (await host.registry.get(id)) throw sessionExists(id);
    throw error;
  }
  try {
    await writeTenancy(
      host.registry,
      id,
      options.ownerId ?? snapshot.ownerId,
      snapshot.metadata,
    );
    // Defined before the import, which writes their contents with the other blocks'.
    await defineCreatedBlocks(host.registry, id, created, info.created_at);
    await host.getSession(id).importSnapshot(snapshot, { replace: true });
    // Importing the messages touched the row; the snapshot's time wins.
    await host.registry.update(id, { updated_at: info.updated_at });
  } catch (error) {
    // Leave nothing behind: the import is all or nothing.
    await host.delete(id);
    throw error;
  }
  return (await host.registry.get(id))!;
}

// --- Internal helpers ---

/** The snapshot's registry row under the new id, or a fresh row for snapshots without one. */
function importedInfo(
  snapshot: SessionSnapshot,
  id: string,
  name: string | undefined,
): SessionInfo {
  const now = new Date().toISOString();
  return {
    ...(snapshot.info ?? {
      parent_session_id: null,
      model: null,
      source: null,
      input_tokens: 0,
      output_tokens: 0,
      estimated_cost: 0,
      end_reason: null,
      created_at: now,
      updated_at: now,
    }),
    id,
    name: name ?? snapshot.info?.name ?? "Imported",
  };
}
