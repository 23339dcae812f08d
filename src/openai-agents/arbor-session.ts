import type {
  AgentInputItem,
  Session as AgentsSession,
} from "@openai/agents-core";
import {
  ArborTypeError,
  isArborError,
  type Session,
  type SessionManager,
  type SessionMessage,
} from "../session/index.js";
import {
  ITEM_METADATA,
  isUserMessage,
  itemOf,
  messageOf,
  storedOf,
  textOf,
  type TurnUsage,
} from "./item-mirror.js";
import type {
  ArborSessionOptions,
  RunUsageSource,
  SessionUsage,
  TurnInfo,
} from "./types.js";

/**
 * Session metadata key naming the leaf at which the agent's history was emptied: a `popItem()` of
 * the first item, or `branchFrom(1)`. Arbor's active branch always ends at a message, so an empty
 * history over a non-empty tree is this marker; it holds while that message is still the active
 * leaf, so an append or a branch switch (here, in the studio or over HTTP) ends it by itself.
 */
const EMPTIED_AT = "openai-agents.emptied-at";

/**
 * The OpenAI Agents SDK's `Session` over an Arbor `SessionManager`, so over any Arbor backend
 * (docs/openai-agents.md). One item is one Arbor message on the active branch: the item kept
 * whole, with a readable mirror for the studio, the CLI and search. Nothing is deleted but by
 * `clearSession()`: `popItem()` and `branchFrom()` move the active leaf back, and the next items
 * start a sibling branch beside what was there.
 */
export class ArborSession implements AgentsSession {
  readonly #manager: SessionManager;
  readonly #sessionId: string;
  readonly #name: string;
  #opened: Promise<Session> | undefined;

  constructor(options: ArborSessionOptions) {
    if (typeof options !== "object" || options === null || !options.manager) {
      throw invalid("new ArborSession() needs { manager }, a SessionManager");
    }
    const { sessionId } = options;
    if (
      sessionId !== undefined &&
      (typeof sessionId !== "string" || sessionId === "")
    ) {
      throw invalid("`sessionId` must be a non-empty string");
    }
    this.#manager = options.manager;
    this.#sessionId = sessionId ?? crypto.randomUUID();
    this.#name = options.name ?? "OpenAI Agents session";
  }

  // --- The Agents SDK's Session ---

  /** The Arbor session id; the session is registered (named `options.name`) on first use. */
  async getSessionId(): Promise<string> {
    await this.#open();
    return this.#sessionId;
  }

  /** The items of the active branch, oldest first; with `limit`, the last `limit` of them. */
  async getItems(limit?: number): Promise<AgentInputItem[]> {
    if (
      limit !== undefined &&
      (typeof limit !== "number" || !Number.isInteger(limit))
    ) {
      throw invalid("getItems(limit): `limit` must be an integer");
    }
    if (limit !== undefined && limit <= 0) return [];
    const items = (await this.#path()).flatMap((message) => {
      const item = itemOf(message);
      return item === undefined ? [] : [item];
    });
    return limit === undefined ? items : items.slice(-limit);
  }

  /** Appends the items, in order, after the active leaf; all are checked before any is written. */
  async addItems(items: AgentInputItem[]): Promise<void> {
    if (!Array.isArray(items)) {
      throw invalid("addItems(items): `items` must be an array");
    }
    items.forEach((item, index) => {
      if (typeof item !== "object" || item === null || Array.isArray(item)) {
        throw invalid(`addItems(items): item ${index} is not an object`);
      }
    });
    if (items.length === 0) return;
    const session = await this.#open();
    const path = await this.#path();
    // The parent is named, not left to the active leaf: an emptied history starts a new root.
    const parentId = path.at(-1)?.id ?? null;
    await session.appendAll(
      items.map((item) => messageOf(item, crypto.randomUUID())),
      parentId,
    );
  }

  /**
   * Takes the newest item off the active branch and returns it. The message stays in the tree:
   * the active leaf moves to its parent, and the next items become its siblings.
   */
  async popItem(): Promise<AgentInputItem | undefined> {
    const path = await this.#path();
    const last = path.at(-1);
    if (!last) return undefined;
    await this.#moveLeafBefore(path, path.length - 1);
    return itemOf(last);
  }

  /** Erases the session: every message of every branch, its usage and metadata. */
  async clearSession(): Promise<void> {
    await this.#manager.erase({ sessionId: this.#sessionId });
    // The registry row went with it; the next call registers the session again.
    this.#opened = undefined;
  }

  // --- Turns, branches and usage ---

  /** The turns of the active branch: each user message, numbered from 1, with its usage. */
  async listTurns(): Promise<TurnInfo[]> {
    const turns: TurnInfo[] = [];
    for (const message of await this.#path()) {
      const item = itemOf(message);
      if (!isUserMessage(item)) continue;
      const usage = storedOf(message)?.usage;
      turns.push({
        turn: turns.length + 1,
        messageId: message.id,
        text: textOf(item!),
        ...(usage ? { usage } : {}),
      });
    }
    return turns;
  }

  /**
   * Goes back to just before `turn`'s user message: the history is the turns before it, and the
   * next run starts a new branch beside the old one, which stays (switch back to it with
   * `switchBranch()` and the message id `listTurns()` gave).
   */
  async branchFrom(turn: number): Promise<void> {
    const path = await this.#path();
    const index = this.#turnIndex(path, turn);
    await this.#moveLeafBefore(path, index);
  }

  /**
   * Makes the branch through `messageId` the active one, continuing it to its newest leaf (one
   * read per message below `messageId` on the way down).
   *
   * @throws ArborError `MESSAGE_NOT_FOUND` when the session has no such message.
   */
  async switchBranch(messageId: string): Promise<void> {
    const session = await this.#open();
    let leaf = messageId;
    if ((await session.getMessage(leaf)) !== null) {
      for (;;) {
        const next = (await session.getBranches(leaf)).at(-1);
        if (!next) break;
        leaf = next.id;
      }
    }
    await session.switchBranch(leaf); // MESSAGE_NOT_FOUND for an unknown id
    // A branch chosen by name is never the emptied history, even when it ends at the marked leaf.
    const emptiedAt = await this.#manager.getMetadata(
      this.#sessionId,
      EMPTIED_AT,
    );
    if (emptiedAt)
      await this.#manager.setMetadata(this.#sessionId, EMPTIED_AT, "");
  }

  /**
   * Records the usage of a run (a `RunResult` or a finished `StreamedRunResult`) on the newest
   * turn of the active branch, adding to what that turn has, and to the session's counters the
   * studio and the CLI show.
   */
  async storeRunUsage(result: RunUsageSource): Promise<void> {
    const responses = result?.rawResponses;
    if (!Array.isArray(responses)) {
      throw invalid(
        "storeRunUsage(result): `result.rawResponses` must be an array",
      );
    }
    const usage = sumUsage(result.rawResponses);
    const session = await this.#open();
    const path = await this.#path();
    const turn = path.findLast((message) => isUserMessage(itemOf(message)));
    const stored = turn ? storedOf(turn) : undefined;
    if (turn && stored) {
      const before = stored.usage;
      const after = before ? addUsage(before, usage) : usage;
      await session.updateMessage({
        ...turn,
        metadata: {
          ...(turn.metadata as Record<string, unknown>),
          [ITEM_METADATA]: { ...stored, usage: after },
        },
      });
    }
    await this.#manager.addUsage(
      this.#sessionId,
      usage.inputTokens,
      usage.outputTokens,
      0,
    );
  }

  /** The session's token counters (every branch, every run stored with `storeRunUsage()`). */
  async getSessionUsage(): Promise<SessionUsage> {
    await this.#open();
    const info = await this.#manager.get(this.#sessionId);
    const inputTokens = info?.input_tokens ?? 0;
    const outputTokens = info?.output_tokens ?? 0;
    return {
      inputTokens,
      outputTokens,
      totalTokens: inputTokens + outputTokens,
    };
  }

  /** The Arbor session underneath, for everything else (search, compaction, the whole tree). */
  async arborSession(): Promise<Session> {
    return this.#open();
  }

  // --- Internal helpers ---

  /** The registered session; registers it (its id taken by nobody else) the first time. */
  #open(): Promise<Session> {
    this.#opened ??= (async () => {
      const manager = this.#manager;
      if ((await manager.get(this.#sessionId)) === null) {
        try {
          await manager.create(this.#name, { id: this.#sessionId });
        } catch (error) {
          // Another process registered it first: the same session, which is what is wanted.
          if (!(isArborError(error) && error.code === "SESSION_EXISTS"))
            throw error;
        }
      }
      return manager.getSession(this.#sessionId);
    })().catch((error: unknown) => {
      this.#opened = undefined;
      throw error;
    });
    return this.#opened;
  }

  /** The active branch, root first; empty after its first item was popped or branched from. */
  async #path(): Promise<SessionMessage[]> {
    const session = await this.#open();
    const [history, emptiedAt] = await Promise.all([
      session.getHistory(),
      this.#manager.getMetadata(this.#sessionId, EMPTIED_AT),
    ]);
    const leaf = history.at(-1);
    return leaf && leaf.id === emptiedAt ? [] : history;
  }

  /** Makes `path[index - 1]` the active leaf; for index 0, an empty history. */
  async #moveLeafBefore(path: SessionMessage[], index: number): Promise<void> {
    const previous = path[index - 1];
    if (previous) {
      await (await this.#open()).switchBranch(previous.id);
      return;
    }
    await this.#manager.setMetadata(
      this.#sessionId,
      EMPTIED_AT,
      path.at(-1)!.id,
    );
  }

  /** Where turn `turn` (1-based) starts on `path`. */
  #turnIndex(path: SessionMessage[], turn: number): number {
    if (!Number.isInteger(turn) || turn < 1) {
      throw invalid("branchFrom(turn): `turn` must be an integer from 1");
    }
    let seen = 0;
    const index = path.findIndex(
      (message) => isUserMessage(itemOf(message)) && ++seen === turn,
    );
    if (index === -1) {
      throw invalid(
        `branchFrom(turn): the active branch has ${seen} turn${seen === 1 ? "" : "s"}, not ${turn}`,
      );
    }
    return index;
  }
}

/** The usage of a run's model responses; a response without usage counts one request. */
function sumUsage(responses: RunUsageSource["rawResponses"]): TurnUsage {
  return responses.reduce<TurnUsage>(
    (sum, { usage }) =>
      addUsage(sum, {
        requests: tokens(usage?.requests, 1),
        inputTokens: tokens(usage?.inputTokens, 0),
        outputTokens: tokens(usage?.outputTokens, 0),
        totalTokens: tokens(usage?.totalTokens, 0),
      }),
    { requests: 0, inputTokens: 0, outputTokens: 0, totalTokens: 0 },
  );
}

function addUsage(a: TurnUsage, b: TurnUsage): TurnUsage {
  return {
    requests: a.requests + b.requests,
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
}

/** A count as reported, or `fallback` when it is missing or not a count. */
function tokens(value: unknown, fallback: number): number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0
    ? value
    : fallback;
}

function invalid(detail: string): ArborTypeError {
  return new ArborTypeError(
    "INVALID_ARGUMENT",
    `[arbor] [openai-agents] ${detail}`,
  );
}
