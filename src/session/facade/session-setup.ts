import { ContextBlocks } from "../context/context-blocks.js";
import { SessionTree } from "../state/session-tree.js";
import type {
  AnyContextProvider,
  WritableContextProvider,
} from "../contracts/context-provider.js";
import {
  isSkillProvider,
  isWritableProvider,
} from "../contracts/context-provider.js";
import { SkillTracker } from "../context/skills.js";
import { SystemPrompt } from "../context/system-prompt.js";
import type { ContextConfig } from "../context/types.js";
import type { BlockHistoryStore } from "../contracts/block-history.js";
import { ArborError } from "../errors/index.js";
import type { SessionProvider } from "../contracts/provider.js";
import type { BackendEmbeddings } from "../contracts/embedding-store.js";
import { inProcessBlockHistory } from "./session-stores.js";

/** The key prefix of the cached system prompt; block labels may not use it (docs/behavior/session-setup.md). */
export const PROMPT_KEY = "_system_prompt";

/** What the builder recorded. */
export interface SessionPlan {
  /** The store (for `Session.create(sqlStore)`, the sql backend's provider over it). */
  provider: SessionProvider;
  sessionId: string;
  context: ContextConfig[];
  /** `undefined` = no cached prompt; `null` = auto-wired; a provider = that provider. */
  promptStore: WritableContextProvider | null | undefined;
  /** Set by a SessionManager (`SessionSeam.storedBlocks`): the blocks stored with the session. */
  stored?: (provider: SessionProvider) => Promise<ContextConfig[]>;
  /** True for the direct constructor: exactly the given pieces, no auto-wiring (docs/behavior/session-setup.md). */
  direct: boolean;
}

/** The resolved pieces of an initialized session. */
export interface SessionParts {
  /** The store: the plan's provider (scoped to the session), called directly. */
  provider: SessionProvider;
  /** The reads with a default leaf (the active one, `switchBranch`) and the rules on overlay rows. */
  tree: SessionTree;
  blocks: ContextBlocks;
  prompt: SystemPrompt;
  skills: SkillTracker;
  /** Labels of auto-wired blocks: the session owns their rows (snapshots carry them). */
  ownedLabels: ReadonlySet<string>;
  /** The store's embeddings (`provider.embeddings()`), or `null` when it has none. */
  embeddings: BackendEmbeddings | null;
}

/** Resolves storage, blocks and the prompt store at first use (docs/behavior/session-setup.md). */
export function setUpSession(plan: SessionPlan): SessionParts {
  const store = resolveProvider(plan);
  // A provider without `watchChanges` has no feed: `watch()` says NOT_SUPPORTED
  // (docs/behavior/events-and-audit.md); nothing is patched in.
  const provider = store;
  const tree = new SessionTree(provider);
  const configs = plan.context.map((config) => ({
    ...config,
    ...resolveBlockProvider(plan, provider, config),
  }));
  const blocks = new ContextBlocks(
    configs,
    resolveBlockHistory(plan, provider),
  );
  const { stored } = plan;
  if (stored) blocks.stored = () => stored(provider);
  let promptStore: WritableContextProvider | null = null;
  if (plan.promptStore) promptStore = plan.promptStore;
  else if (plan.promptStore === null) {
    const key = plan.sessionId ? `${PROMPT_KEY}_${plan.sessionId}` : PROMPT_KEY;
    const wired = autoWire(plan, provider, key);
    promptStore = isWritableProvider(wired) ? wired : null;
  }
  return {
    provider,
    tree,
    blocks,
    prompt: new SystemPrompt(blocks, promptStore),
    skills: new SkillTracker(),
    ownedLabels: new Set(
      plan.context
        .filter((config) => !config.provider)
        .map((config) => config.label),
    ),
    embeddings: store.embeddings?.() ?? null,
  };
}

/** A provider for a block added at runtime without one (docs/behavior/context-blocks.md). */
export function providerForRuntimeBlock(
  plan: SessionPlan,
  provider: SessionProvider,
  label: string,
): AnyContextProvider {
  const wired = plan.direct
    ? undefined
    : autoWire(plan, provider, blockKey(plan, label));
  if (!wired) {
    throw new ArborError(
      "NOT_SUPPORTED",
      `addContext("${label}") requires an explicit provider when Session uses a SessionProvider`,
    );
  }
  return wired;
}

/** Rejects labels that are taken or collide with the prompt store. */
export function assertNewLabel(labels: readonly string[], label: string): void {
  if (typeof label !== "string" || label === "") {
    throw new ArborError(
      "INVALID_ARGUMENT",
      "[arbor] A context block needs a non-empty label",
    );
  }
  if (label.startsWith(PROMPT_KEY)) {
    throw new ArborError(
      "BLOCK_LABEL_RESERVED",
      `[arbor] Block label "${label}" is reserved: labels starting with "${PROMPT_KEY}" name the cached system prompt`,
    );
  }
  if (labels.includes(label)) {
    throw new ArborError("BLOCK_EXISTS", `Block "${label}" already exists`);
  }
}

export function hasSkillBlocks(configs: readonly ContextConfig[]): boolean {
  return configs.some((config) => isSkillProvider(config.provider));
}

// --- Internal helpers ---

function resolveProvider(plan: SessionPlan): SessionProvider {
  const provider = plan.provider;
  if ((provider.sessionId ?? "") === plan.sessionId || plan.direct)
    return provider;
  if (provider.forSession) return provider.forSession(plan.sessionId);
  throw new ArborError(
    "NOT_SUPPORTED",
    `[arbor] forSession("${plan.sessionId}") needs a provider with forSession(); pass a provider scoped to that session instead`,
  );
}

function blockKey(plan: SessionPlan, label: string): string {
  if (!plan.sessionId) return label;
  // The key format is kept for compatibility, but ("memory", "a_b") and ("memory_a", "b") share
  // the row "memory_a_b" (docs/behavior/differences.md item 15): say so when both parts could collide.
  if (label.includes("_") && plan.sessionId.includes("_")) {
    console.warn(
      `[arbor] Block "${label}" of session "${plan.sessionId}": both contain "_", so its row key "${label}_${plan.sessionId}" can collide with another label and session; avoid "_" in one of them`,
    );
  }
  return `${label}_${plan.sessionId}`;
}

function resolveBlockProvider(
  plan: SessionPlan,
  provider: SessionProvider,
  config: ContextConfig,
): { provider?: AnyContextProvider } {
  if (config.provider) return { provider: config.provider };
  const wired = plan.direct
    ? undefined
    : autoWire(plan, provider, blockKey(plan, config.label));
  if (wired) return { provider: wired };
  console.warn(
    `[arbor] Block "${config.label}" has no provider: it is empty and read-only. Pass a provider, or use a store that can create one.`,
  );
  return {};
}

function autoWire(
  plan: SessionPlan,
  provider: SessionProvider,
  key: string,
): AnyContextProvider | undefined {
  const created = provider.createContextProvider?.(key);
  return created && typeof created === "object"
    ? (created as AnyContextProvider)
    : undefined;
}

function resolveBlockHistory(
  plan: SessionPlan,
  provider: SessionProvider,
): BlockHistoryStore {
  return provider.createBlockHistory?.() ?? inProcessBlockHistory();
}
