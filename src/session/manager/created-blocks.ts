/*
 * Blocks created at run time through a manager (`manager.createContextBlock()`, the server's
 * `POST /v1/sessions/{id}/blocks`, the studio's New block). A block's definition (label,
 * description, maxTokens) is a config entry of its session in the registry, `block:<label>`, so
 * a session opened again (another process, after a restart) has the block: its Session reads the
 * entries each time it loads its blocks (`SessionSeam.storedBlocks`). The content is an
 * auto-wired row, `<label>_<sessionId>`, as for a block the manager declares, and each write is a
 * version in the block's history. docs/decisions/2026-12-07-created-blocks-in-session-config.md.
 */
import type { ContextBlock } from "../contracts/types.js";
import type {
  CreatedBlockRows,
  SessionRegistry,
} from "../contracts/registry.js";
import type { SessionProvider } from "../contracts/provider.js";
import type { ContextConfig } from "../context/types.js";
import type { AnyContextProvider } from "../contracts/context-provider.js";
import { assertMaxTokens, blockExists } from "../context/context-blocks.js";
import { estimateStringTokens } from "../tokens/estimate-tokens.js";
import { ArborError, invalidArgument } from "../errors/index.js";
import type { ManagedSession } from "./session-cache.js";
import { requireRow } from "./session-rows.js";

/** The config key prefix of a created block's definition. */
export const CREATED_BLOCK_PREFIX = "block:";

/** A created block's label: a letter or digit, then letters, digits, `-` and `_`; it is a URL path segment. */
export const LABEL = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
export const MAX_DESCRIPTION = 2_000;

/** `manager.createContextBlock(id, label, options)`. */
export interface CreateContextBlockOptions {
  /** Shown in the system prompt beside the label. */
  description?: string;
  /** The block's token budget; writes above it throw `BLOCK_TOO_LARGE`. */
  maxTokens?: number;
  /** The first version of the content; omitted or `""` leaves the block empty. */
  content?: string;
}

/** What a definition entry holds (JSON). */
interface StoredDefinition {
  description?: string;
  maxTokens?: number;
  createdAt: string;
}

/**
 * Creates a writable block in a session and stores its definition. Every argument is checked
 * before anything is written; a label the session already has (declared, or created by anyone,
 * also at the same moment where the registry claims atomically) throws `BLOCK_EXISTS`.
 */
export async function createContextBlock(
  registry: SessionRegistry,
  { session, seam }: ManagedSession,
  sessionId: string,
  label: string,
  options: CreateContextBlockOptions = {},
): Promise<ContextBlock> {
  const definition = checkDefinition(label, options);
  const content = options.content ?? "";
  await requireRow(registry, sessionId);
  // Read afresh: a block of the label another process deleted is free again.
  const blocks = await session.loadContext({ reload: true });
  if (blocks.some((block) => block.label === label)) throw blockExists(label);
  const { provider } = await seam.ready();
  // A store that cannot make the content row refuses before anything is written.
  wiredProvider(provider, sessionId, label);
  const rows = createdBlockRows(sessionId, label);
  const value = JSON.stringify(definition);
  if (!(await claim(registry, sessionId, rows, value)))
    throw blockExists(label);
  try {
    // A load that started before the claim may not have the definition: the one after it has.
    await session.loadContext({ reload: true });
    if (!session.getContextBlock(label))
      await session.loadContext({ reload: true });
    if (content === "") return session.getContextBlock(label)!;
    return await session.replaceContextBlock(label, content);
  } catch (error) {
    // A failed create leaves no block: the definition goes with it.
    if (registry.deleteBlock) await registry.deleteBlock(sessionId, rows);
    else await provider.setConfig?.(rows.configKey, null);
    session.removeContext(label);
    throw error;
  }
}

/**
 * Deletes a block created in the session: its definition, its content row and its history, in one
 * write (`SessionRegistry.deleteBlock`), announced on the change feed. A declared block (the
 * application's code defines it) throws `BLOCK_READONLY`, an unknown label `BLOCK_NOT_FOUND`.
 */
export async function deleteContextBlock(
  registry: SessionRegistry,
  { session }: ManagedSession,
  sessionId: string,
  label: string,
): Promise<void> {
  await requireRow(registry, sessionId);
  // Read afresh: another process may have created or deleted it.
  const block = (await session.loadContext({ reload: true })).find(
    (candidate) => candidate.label === label,
  );
  if (block && !block.created)
    throw new ArborError(
      "BLOCK_READONLY",
      `Block "${label}" is declared by the application: only a block created in the session can be deleted`,
    );
  if (!registry.deleteBlock)
    throw new ArborError(
      "NOT_SUPPORTED",
      `[arbor] Block "${label}" cannot be deleted: the registry has no deleteBlock`,
    );
  if (
    !block ||
    !(await registry.deleteBlock(sessionId, createdBlockRows(sessionId, label)))
  )
    throw new ArborError("BLOCK_NOT_FOUND", `Block "${label}" not found`);
  // The session drops the block: its next load no longer reads the definition.
  await session.loadContext({ reload: true });
}

/** The session's created blocks, as configs with their auto-wired providers (`SessionSeam.storedBlocks`). */
export async function storedBlockConfigs(
  registry: SessionRegistry,
  sessionId: string,
  provider: SessionProvider,
): Promise<ContextConfig[]> {
  const entries = await registry.listConfig(sessionId, CREATED_BLOCK_PREFIX);
  return Object.entries(entries).flatMap(([key, value]) => {
    const label = key.slice(CREATED_BLOCK_PREFIX.length);
    const definition = parseDefinition(value);
    if (!definition || !LABEL.test(label)) return [];
    return [
      {
        label,
        ...(definition.description !== undefined
          ? { description: definition.description }
          : {}),
        ...(definition.maxTokens !== undefined
          ? { maxTokens: definition.maxTokens }
          : {}),
        provider: wiredProvider(provider, sessionId, label),
      },
    ];
  });
}

/** The content rows of the session's created blocks: a delete or erase removes them. */
export async function createdBlockKeys(
  registry: SessionRegistry,
  sessionId: string,
): Promise<string[]> {
  const entries = await registry.listConfig(sessionId, CREATED_BLOCK_PREFIX);
  return Object.keys(entries).map(
    (key) => `${key.slice(CREATED_BLOCK_PREFIX.length)}_${sessionId}`,
  );
}

// --- Internal helpers ---

function createdBlockRows(sessionId: string, label: string): CreatedBlockRows {
  return {
    label,
    configKey: CREATED_BLOCK_PREFIX + label,
    contextKey: `${label}_${sessionId}`,
  };
}

/**
 * Claims the definition: in one write with its change notice where the registry can
 * (`createBlock`), else atomically by `setConfigIfAbsent`, else by a read and a write.
 */
async function claim(
  registry: SessionRegistry,
  sessionId: string,
  rows: CreatedBlockRows,
  value: string,
): Promise<boolean> {
  if (registry.createBlock) return registry.createBlock(sessionId, rows, value);
  if (registry.setConfigIfAbsent)
    return registry.setConfigIfAbsent(sessionId, rows.configKey, value);
  if ((await registry.getConfig(sessionId, rows.configKey)) !== null)
    return false;
  await registry.setConfig(sessionId, rows.configKey, value);
  return true;
}

function checkDefinition(
  label: unknown,
  options: CreateContextBlockOptions,
): StoredDefinition {
  if (typeof label !== "string" || !LABEL.test(label)) {
    throw invalidArgument(
      `A created block's label is 1 to 64 letters, digits, "-" or "_", starting with a letter or digit (got ${JSON.stringify(label)})`,
    );
  }
  if (typeof options !== "object" || options === null)
    throw invalidArgument("createContextBlock() options must be an object");
  const { description, maxTokens, content } = options;
  if (
    description !== undefined &&
    (typeof description !== "string" || description.length > MAX_DESCRIPTION)
  ) {
    throw invalidArgument(
      `Block "${label}": description must be a string of at most ${MAX_DESCRIPTION} characters`,
    );
  }
  assertMaxTokens(label, maxTokens);
  if (content !== undefined && typeof content !== "string")
    throw invalidArgument(`Block "${label}": content must be a string`);
  if (content !== undefined && maxTokens !== undefined) {
    const tokens = estimateStringTokens(content);
    if (tokens > maxTokens) {
      throw new ArborError(
        "BLOCK_TOO_LARGE",
        `Block "${label}" exceeds maxTokens: ${tokens} > ${maxTokens}`,
      );
    }
  }
  return {
    ...(description !== undefined && description !== "" ? { description } : {}),
    ...(maxTokens !== undefined ? { maxTokens } : {}),
    createdAt: new Date().toISOString(),
  };
}

function parseDefinition(value: string): StoredDefinition | null {
  try {
    const parsed = JSON.parse(value) as Partial<StoredDefinition> | null;
    if (typeof parsed !== "object" || parsed === null) return null;
    return {
      ...(typeof parsed.description === "string"
        ? { description: parsed.description }
        : {}),
      ...(typeof parsed.maxTokens === "number" && parsed.maxTokens > 0
        ? { maxTokens: parsed.maxTokens }
        : {}),
      createdAt: String(parsed.createdAt ?? ""),
    };
  } catch {
    return null;
  }
}

/**
 * The block's row beside the messages, under the key a declared block of the manager gets
 * (`<label>_<sessionId>`, session-setup.ts). A store that cannot make one has no created blocks.
 */
function wiredProvider(
  provider: SessionProvider,
  sessionId: string,
  label: string,
): AnyContextProvider {
  const created = provider.createContextProvider?.(`${label}_${sessionId}`);
  if (created && typeof created === "object")
    return created as AnyContextProvider;
  throw new ArborError(
    "NOT_SUPPORTED",
    `[arbor] Block "${label}" cannot be created: the store has no context rows (createContextProvider)`,
  );
}
