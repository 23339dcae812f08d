// Erase on the key-value store (docs/behavior/erase-and-retention.md): one target's documents
// changed in one step under the store's write lock, the engine's copy erased with them. The rules
// (which overlays, config rows and block versions go with an erased message) are restated here:
// Arbor's own helpers for them are internal.
import type {
  BackendErase,
  BlockVersion,
  EraseCounts,
  StoreEraseResult,
  StoreEraseTarget,
  StoredCompaction,
} from "arbor-memory/session";
import { blocksKey, type BlockVersions } from "./kv-context.js";
import {
  configKey,
  registryKey,
  sessionKey,
  type SessionDoc,
} from "./kv-documents.js";
import { streamKey } from "./kv-streams.js";
import type { KvStore } from "./kv-store.js";

/** The config key of the `switchBranch()` pointer: the one config row that names messages. */
const ACTIVE_LEAF_KEY = "active_leaf";

export function kvErase(store: KvStore): BackendErase {
  return {
    eraseTarget: (target, { dryRun }) =>
      store.exclusive(() => eraseTarget(store, target, dryRun)),
  };
}

async function eraseTarget(
  store: KvStore,
  target: StoreEraseTarget,
  dryRun: boolean,
): Promise<StoreEraseResult> {
  const { sessionId } = target;
  const whole = target.messageIds === null;
  const doc = store.read<SessionDoc>(sessionKey(sessionId)) ?? {
    rows: {},
    overlays: [],
  };
  const doomed = new Set(
    (whole ? Object.keys(doc.rows) : target.messageIds!).filter(
      (id) => doc.rows[id],
    ),
  );
  const overlays = whole
    ? doc.overlays
    : doc.overlays.filter((overlay) => covers(overlay, doomed, doc));
  const toolCalls = new Set(
    [...doomed].flatMap((id) => toolCallIdsOf(doc.rows[id]!.json)),
  );
  const versionGoes = (version: BlockVersion) =>
    whole ||
    (version.toolCallId !== undefined && toolCalls.has(version.toolCallId));
  const blocks = store.read<BlockVersions>(blocksKey(sessionId)) ?? {};
  const config = store.read<Record<string, string>>(configKey(sessionId)) ?? {};
  const configGoes = Object.keys(config).filter(
    (key) => whole || mentions(key, config[key]!, doomed),
  );
  const counts: EraseCounts = {
    sessions: whole && store.read(registryKey(sessionId)) ? 1 : 0,
    messages: doomed.size,
    overlays: overlays.length,
    indexRows: 0,
    blockVersions: Object.values(blocks).flat().filter(versionGoes).length,
    attachments: 0,
    auditEvents: 0,
    configRows: configGoes.length,
    contextRows: whole
      ? target.contextKeys.filter(
          (key) => store.read(`context:${key}`) !== null,
        ).length
      : 0,
    changeLogRows: 0,
    vectors: 0,
    queuedEmbeddings: 0,
  };
  const result = {
    counts,
    messageIds: [...doomed],
    overlayIds: overlays.map((overlay) => overlay.id),
  };
  if (dryRun) return result;

  await store.engine.erase!.eraseTarget(
    { ...target, contextKeys: [] },
    { dryRun: false },
  );
  // The chunks of an answer hold its text; one still being written stops at its next append.
  store.delete(streamKey(sessionId));
  if (whole) {
    for (const key of [
      sessionKey(sessionId),
      configKey(sessionId),
      blocksKey(sessionId),
      registryKey(sessionId),
    ])
      store.delete(key);
    for (const key of target.contextKeys) store.delete(`context:${key}`);
    return result;
  }
  const dropped = new Set(result.overlayIds);
  doc.overlays = doc.overlays.filter((overlay) => !dropped.has(overlay.id));
  // Survivors move up to the nearest surviving ancestor, as a delete does.
  for (const row of Object.values(doc.rows)) {
    let up = row.parentId;
    while (up !== null && doomed.has(up)) up = doc.rows[up]!.parentId;
    row.parentId = up;
  }
  for (const id of doomed) delete doc.rows[id];
  store.write(sessionKey(sessionId), doc);
  for (const key of configGoes) delete config[key];
  store.write(configKey(sessionId), config);
  store.write(blocksKey(sessionId), relink(blocks, versionGoes));
  if (doomed.size > 0) store.changes.record(sessionId, "delete", [...doomed]);
  return result;
}

/**
 * Whether an erase of `doomed` drops the overlay: an endpoint among them, or one in its range
 * (its summary was written from an erased message and may quote it).
 */
function covers(
  overlay: StoredCompaction,
  doomed: ReadonlySet<string>,
  doc: SessionDoc,
): boolean {
  if (doomed.has(overlay.fromMessageId) || doomed.has(overlay.toMessageId))
    return true;
  const seen = new Set<string>();
  for (let at: string | null = overlay.toMessageId; at !== null;) {
    if (seen.has(at) || !doc.rows[at]) return false;
    seen.add(at);
    if (doomed.has(at)) return true;
    if (at === overlay.fromMessageId) return false;
    at = doc.rows[at]!.parentId;
  }
  return false;
}

/** The tool call ids of a stored message: block versions written by those calls go with it. */
function toolCallIdsOf(json: string): string[] {
  const parts = (JSON.parse(json) as { parts?: unknown }).parts;
  if (!Array.isArray(parts)) return [];
  return parts.flatMap((part) => {
    const id = (part as { toolCallId?: unknown } | null)?.toolCallId;
    return typeof id === "string" ? [id] : [];
  });
}

/** Whether a config row points at an erased message (the branch pointer). */
function mentions(
  key: string,
  value: string,
  doomed: ReadonlySet<string>,
): boolean {
  if (key !== ACTIVE_LEAF_KEY) return false;
  try {
    const pointer = JSON.parse(value) as Record<string, unknown> | null;
    return Object.values(pointer ?? {}).some(
      (v) => typeof v === "string" && doomed.has(v),
    );
  } catch {
    return false;
  }
}

/**
 * The versions left once `goes` picks some: a version that followed a dropped one quotes it as
 * `previousContent`, so it gets the content of the nearest kept one before it.
 */
function relink(
  blocks: BlockVersions,
  goes: (version: BlockVersion) => boolean,
): BlockVersions {
  const kept: BlockVersions = {};
  for (const [label, list] of Object.entries(blocks)) {
    const left: BlockVersion[] = [];
    let skipped = false;
    for (const version of list) {
      if (goes(version)) {
        skipped = true;
        continue;
      }
      left.push(
        skipped
          ? { ...version, previousContent: left.at(-1)?.content ?? null }
          : version,
      );
      skipped = false;
    }
    if (left.length > 0) kept[label] = left;
  }
  return kept;
}
