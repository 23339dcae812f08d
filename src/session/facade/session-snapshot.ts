import { hasCapability } from "../contracts/provider-capabilities.js";
import type {
  CreatedBlockDefinition,
  SessionSnapshot,
} from "../contracts/session-info.js";
import type { ContextBlocks } from "../context/context-blocks.js";
import type { SessionTree } from "../state/session-tree.js";
import { ArborError } from "../errors/index.js";
import { warnRestore, type SessionRuntime } from "./session-runtime.js";
import { assertSnapshot } from "../snapshot/snapshot.js";

/**
 * The whole session as data (docs/behavior/manager.md): every branch in insertion order, overlays, the
 * contents of the session's own blocks and the persisted prompt.
 */
export async function exportSnapshot(
  runtime: SessionRuntime,
): Promise<SessionSnapshot> {
  const { provider, tree, blocks, prompt, ownedLabels } = await runtime.ready();
  if (!hasCapability(provider, "snapshotExport")) {
    throw new ArborError(
      "NOT_SUPPORTED",
      "[arbor] This session provider cannot export its messages (no exportMessages())",
    );
  }
  const records = await provider.exportMessages();
  const activeLeaf = await tree.latestLeaf();
  await blocks.load();
  const created = await createdBlocks(runtime, blocks);
  const contextBlocks: Record<string, string> = {};
  for (const block of blocks.list()) {
    if (
      (ownedLabels.has(block.label) || block.label in created) &&
      block.writable
    )
      contextBlocks[block.label] = block.content;
  }
  return {
    format: "arbor.session",
    version: 1,
    sessionId: runtime.plan.sessionId,
    exportedAt: new Date().toISOString(),
    messages: records.map(({ message, parentId, createdAt }) => ({
      message,
      parentId,
      createdAt,
    })),
    compactions: await provider.getCompactions(),
    activeLeafId: activeLeaf?.id ?? null,
    contextBlocks,
    ...(Object.keys(created).length > 0 ? { createdBlocks: created } : {}),
    systemPrompt: await prompt.stored(),
  };
}

/**
 * Restores a snapshot into the session, whatever its id: messages with their ids, parents and
 * order, overlays (in one atomic write, replacing existing rows unless `replace: false`), then
 * the contents of the session's own blocks, the frozen prompt and the loaded skills.
 */
export async function importSnapshot(
  runtime: SessionRuntime,
  snapshot: SessionSnapshot,
  options: { replace?: boolean } = {},
): Promise<void> {
  assertSnapshot(snapshot);
  const { provider, tree, blocks, prompt, skills, ownedLabels } =
    await runtime.ready();
  if (!hasCapability(provider, "snapshotImport")) {
    throw new ArborError(
      "NOT_SUPPORTED",
      "[arbor] This session provider cannot import records (no importRecords())",
    );
  }
  const importRecords = provider.importRecords.bind(provider);
  await runtime.exclusive(provider, async () =>
    importRecords({
      messages: snapshot.messages,
      compactions: snapshot.compactions,
      replace: options.replace ?? true,
    }),
  );
  await restoreActiveLeaf(tree, snapshot.activeLeafId);
  runtime.compaction.estimator.invalidate();
  // A manager defined the snapshot's created blocks just before (their config entries): a load
  // that ran earlier has not read them.
  await blocks.load(snapshot.createdBlocks !== undefined);
  const created = await createdBlocks(runtime, blocks);
  for (const [label, content] of Object.entries(snapshot.contextBlocks ?? {})) {
    if (
      (ownedLabels.has(label) || label in created) &&
      blocks.get(label)?.writable &&
      typeof content === "string"
    ) {
      await blocks.replace(label, content, { source: "import" });
    }
  }
  if (typeof snapshot.systemPrompt === "string")
    await prompt.restore(snapshot.systemPrompt);
  await skills.restore(tree).catch(warnRestore);
}

/**
 * The session's created blocks (stored with it by a manager, `ContextBlocks.stored`), by label:
 * their definitions. A label the session declares itself is the declared block's.
 */
async function createdBlocks(
  runtime: SessionRuntime,
  blocks: ContextBlocks,
): Promise<Record<string, CreatedBlockDefinition>> {
  const declared = new Set(runtime.plan.context.map((config) => config.label));
  const definitions: Record<string, CreatedBlockDefinition> = {};
  for (const config of (await blocks.stored?.()) ?? []) {
    if (declared.has(config.label)) continue;
    definitions[config.label] = {
      ...(config.description !== undefined
        ? { description: config.description }
        : {}),
      ...(config.maxTokens !== undefined
        ? { maxTokens: config.maxTokens }
        : {}),
    };
  }
  return definitions;
}

/** Points the active branch where it was at export, when that is not simply the newest leaf. */
async function restoreActiveLeaf(
  tree: SessionTree,
  activeLeafId: string | null | undefined,
): Promise<void> {
  if (typeof activeLeafId !== "string") return;
  if ((await tree.latestLeaf())?.id === activeLeafId) return;
  if ((await tree.provider.getMessage(activeLeafId)) !== null)
    await tree.pointer.set(activeLeafId);
}
