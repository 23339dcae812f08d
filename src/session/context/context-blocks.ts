import { ArborError, invalidArgument } from "../errors/index.js";
import { estimateStringTokens } from "../tokens/estimate-tokens.js";
import {
  isSearchProvider,
  isSkillProvider,
  isWritableProvider,
  type AnyContextProvider,
  type WritableContextProvider,
} from "../contracts/context-provider.js";
import type { ContextBlock, ContextConfig } from "./types.js";
import type {
  BlockHistoryStore,
  BlockVersion,
} from "../contracts/block-history.js";
import { textOf } from "../errors/text-of.js";

/** Compare-and-set rounds of one append before it gives up with `WRITE_CONFLICT`. */
const MAX_APPEND_ATTEMPTS = 100;

/** Who wrote a block: recorded in its history (docs/behavior/context-blocks.md). */
export interface WriteSource {
  source: BlockVersion["source"];
  toolCallId?: string;
}

/**
 * The context blocks of one session: configuration, lazy loading (all blocks at once, one load
 * in flight at a time), the write rules of docs/behavior/context-blocks.md and the block history.
 */
export class ContextBlocks {
  private readonly configs: ContextConfig[];
  /** The labels whose config came from `stored`: they go when the store no longer has them. */
  private readonly created = new Set<string>();
  private blocks: Map<string, ContextBlock> | null = null;
  private inflight: Promise<void> | null = null;
  /**
   * Set by a SessionManager: the blocks created at run time and stored with the session
   * (manager/created-blocks.ts), read on each load so they survive a restart.
   */
  stored?: () => Promise<ContextConfig[]>;

  constructor(
    configs: readonly ContextConfig[],
    private readonly historyStore: BlockHistoryStore,
  ) {
    this.configs = [...configs];
  }

  /** True once blocks have been loaded at least once. */
  get isLoaded(): boolean {
    return this.blocks !== null;
  }

  /** Loads every block from its provider; `force` reloads even when loaded. */
  async load(force = false): Promise<void> {
    if (this.blocks && !force) return;
    if (this.inflight) return this.inflight;
    this.inflight = (async () => {
      if (this.stored) {
        const stored = await this.stored();
        const labels = stored.map((config) => config.label);
        // A created block deleted since the last load (by this process or another) goes.
        for (const label of this.created)
          if (!labels.includes(label)) this.remove(label);
        for (const config of stored)
          if (!this.has(config.label)) {
            this.configs.push(config);
            this.created.add(config.label);
          }
      }
      const loaded = await Promise.all(
        this.configs.map((config) =>
          loadBlock(config, this.created.has(config.label)),
        ),
      );
      this.blocks = new Map(loaded.map((block) => [block.label, block]));
    })();
    try {
      await this.inflight;
    } finally {
      this.inflight = null;
    }
  }

  /** A copy of a loaded block, or `null`. */
  get(label: string): ContextBlock | null {
    const block = this.blocks?.get(label);
    return block ? { ...block } : null;
  }

  /** Copies of the loaded blocks in configuration order, runtime additions last. */
  list(): ContextBlock[] {
    return this.blocks
      ? [...this.blocks.values()].map((block) => ({ ...block }))
      : [];
  }

  /** The loaded blocks themselves, for rendering and tools inside the session. */
  loadedBlocks(): readonly ContextBlock[] {
    return this.blocks ? [...this.blocks.values()] : [];
  }

  has(label: string): boolean {
    return this.configs.some((config) => config.label === label);
  }

  config(label: string): ContextConfig | undefined {
    return this.configs.find((config) => config.label === label);
  }

  providers(): AnyContextProvider[] {
    return this.configs.flatMap((config) =>
      config.provider ? [config.provider] : [],
    );
  }

  /** Replaces a plain writable block: provider first, then memory (docs/behavior/context-blocks.md). */
  async replace(
    label: string,
    content: string,
    source: WriteSource,
  ): Promise<ContextBlock> {
    await this.load();
    const written = await this.write(
      label,
      content,
      source,
      async (provider) => {
        await provider.set(content);
        return true;
      },
    );
    return written!;
  }

  /**
   * Appends to a plain writable block after re-reading the provider. When the provider offers
   * `replaceIf(expected, content)` (compare-and-set, e.g. `PostgresContextProvider`), the write
   * applies only if nobody changed the block since the re-read, and is retried otherwise, so
   * concurrent appends from several sessions or processes all land (docs/behavior/context-blocks.md, docs/behavior/differences.md item 7).
   */
  async append(
    label: string,
    content: string,
    source: WriteSource,
  ): Promise<ContextBlock> {
    await this.load();
    for (let attempt = 1; attempt <= MAX_APPEND_ATTEMPTS; attempt++) {
      const { block, provider } = this.writableBlock(label);
      const stored = await provider.get();
      const current = stored ?? "";
      block.content = current;
      block.tokens = estimateStringTokens(current);
      const separator = current !== "" && !content.startsWith("\n") ? "\n" : "";
      const next = current + separator + content;
      if (!hasReplaceIf(provider)) return this.replace(label, next, source);
      const written = await this.write(label, next, source, () =>
        provider.replaceIf(stored, next),
      );
      if (written) return written;
    }
    throw new ArborError(
      "WRITE_CONFLICT",
      `[arbor] Block "${label}" kept changing during appendContextBlock (${MAX_APPEND_ATTEMPTS} attempts); retry`,
    );
  }

  /**
   * Re-reads one block from its provider (after keyed writes). With `keepIfEmpty`, an empty
   * answer keeps the current content (skill lists, docs/behavior/context-blocks.md).
   */
  async reload(
    label: string,
    options: { keepIfEmpty?: boolean } = {},
  ): Promise<void> {
    const config = this.config(label);
    const current = this.blocks?.get(label);
    if (!config || !current || !this.blocks) return;
    const block = await loadBlock(config, this.created.has(label));
    if (options.keepIfEmpty && block.content === "") return;
    this.blocks.set(label, block);
  }

  /** Adds a runtime block, loaded and appended last (docs/behavior/context-blocks.md). */
  async add(config: ContextConfig): Promise<ContextBlock> {
    assertMaxTokens(config.label, config.maxTokens);
    await this.load();
    if (this.has(config.label)) throw blockExists(config.label);
    const block = await loadBlock(config);
    this.configs.push(config);
    this.blocks!.set(config.label, block);
    return { ...block };
  }

  /** Removes a block and its configuration; `false` if absent. */
  remove(label: string): boolean {
    const index = this.configs.findIndex((config) => config.label === label);
    if (index === -1) return false;
    this.configs.splice(index, 1);
    this.blocks?.delete(label);
    this.created.delete(label);
    return true;
  }

  versions(label: string): Promise<BlockVersion[]> | BlockVersion[] {
    return this.historyStore.list(label);
  }

  /** Restores a recorded version with the replace rules, recorded as a `revert`. */
  async revert(label: string, version: number): Promise<ContextBlock> {
    const versions = await this.historyStore.list(label);
    const target = versions.find((entry) => entry.version === version);
    if (!target) {
      throw new ArborError(
        "BLOCK_VERSION_NOT_FOUND",
        `Block "${label}" has no version ${version}`,
      );
    }
    return this.replace(label, target.content, { source: "revert" });
  }

  // --- Internal helpers ---

  /**
   * The write rules shared by replace and append: `maxTokens`, then the provider (`store`), then
   * memory and history. `null` when `store` reports that the block changed under it.
   */
  private async write(
    label: string,
    content: string,
    source: WriteSource,
    store: (provider: WritableContextProvider) => Promise<boolean>,
  ): Promise<ContextBlock | null> {
    const { block, provider } = this.writableBlock(label);
    const tokens = estimateStringTokens(content);
    if (
      block.maxTokens !== undefined &&
      block.maxTokens > 0 &&
      tokens > block.maxTokens
    ) {
      throw new ArborError(
        "BLOCK_TOO_LARGE",
        `Block "${label}" exceeds maxTokens: ${tokens} > ${block.maxTokens}`,
      );
    }
    const previousContent = block.content;
    if (!(await store(provider))) return null;
    block.content = content;
    block.tokens = tokens;
    await this.historyStore.record(label, {
      content,
      previousContent,
      source: source.source,
      ...(source.toolCallId !== undefined
        ? { toolCallId: source.toolCallId }
        : {}),
    });
    return { ...block };
  }

  private writableBlock(label: string): {
    block: ContextBlock;
    provider: WritableContextProvider;
  } {
    const block = this.blocks?.get(label);
    const provider = this.config(label)?.provider;
    if (!block)
      throw new ArborError("BLOCK_NOT_FOUND", `Block "${label}" not found`);
    if (block.isSkill || block.isSearchable) {
      throw new ArborError(
        "BLOCK_KEYED",
        `Block "${label}" is a keyed provider. Use set_context with metadata instead.`,
      );
    }
    if (!block.writable || !isWritableProvider(provider)) {
      throw new ArborError("BLOCK_READONLY", `Block "${label}" is readonly`);
    }
    return { block, provider };
  }
}

/** A writable provider that can compare-and-set (`replaceIf(expected, content)`). */
function hasReplaceIf(
  provider: WritableContextProvider,
): provider is WritableContextProvider & {
  replaceIf(expected: string | null, content: string): Promise<boolean>;
} {
  return typeof (provider as { replaceIf?: unknown }).replaceIf === "function";
}

/**
 * Rejects a `maxTokens` that is set but not a positive finite number: a zero or negative budget
 * would refuse every write and render as a nonsensical usage header (`[-40% — 2/-5 tokens]`).
 */
export function assertMaxTokens(label: string, maxTokens: unknown): void {
  if (maxTokens === undefined) return;
  if (
    typeof maxTokens !== "number" ||
    !Number.isFinite(maxTokens) ||
    maxTokens <= 0
  ) {
    throw invalidArgument(
      `Block "${label}" needs a positive number of maxTokens (got ${textOf(maxTokens, "null")}); omit maxTokens for no budget`,
    );
  }
}

/** `Error('Block "<label>" already exists')`. */
export function blockExists(label: string): Error {
  return new ArborError("BLOCK_EXISTS", `Block "${label}" already exists`);
}

async function loadBlock(
  config: ContextConfig,
  created = false,
): Promise<ContextBlock> {
  const provider = config.provider;
  provider?.init?.(config.label);
  const content = (await provider?.get()) ?? "";
  return {
    label: config.label,
    ...(config.description !== undefined
      ? { description: config.description }
      : {}),
    content,
    tokens: estimateStringTokens(content),
    ...(config.maxTokens !== undefined ? { maxTokens: config.maxTokens } : {}),
    writable: isWritableProvider(provider),
    isSkill: isSkillProvider(provider),
    isSearchable: isSearchProvider(provider),
    ...(created ? { created: true as const } : {}),
  };
}
