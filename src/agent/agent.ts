import {
  ArborError,
  ArborTypeError,
  type Session,
  type SessionMessagePart,
} from "../session/index.js";
import {
  parentOf,
  regenerateTarget,
  requireMessage,
  toParts,
  toUserMessage,
} from "./branches.js";
import { streamTurn } from "./stream-turn.js";
import type {
  AgentOptions,
  TurnOptions,
  TurnResult,
  UserInput,
} from "./types.js";

/**
 * Runs agent turns on top of a Session with any AI SDK model (docs/behavior/agent-turns.md): appends the user
 * message, assembles the context (frozen prompt, history with overlays, truncation, filters),
 * streams with the session's tools plus yours over several steps, persists the answer as a
 * `UIMessage` after every step, records usage on a managed session and refreshes the prompt.
 *
 * Branch operations add to the tree and delete nothing: `regenerate` answers a user message
 * again as a sibling of its old answer, `editUserMessage` adds a sibling user message and
 * answers it. Turns of one agent run one at a time, in call order.
 *
 * @example
 * ```ts
 * import { SessionAgent } from "arbor-memory/agent";
 * import { Session } from "arbor-memory/session";
 * import { openSqlite } from "arbor-memory/sqlite";
 *
 * const session = Session.create(openSqlite("arbor.db"))
 *   .forSession("chat-1")
 *   .withContext("soul", { provider: { get: async () => "You are a helpful assistant." } })
 *   .withContext("memory", { description: "Facts about the user", maxTokens: 1000 });
 * const agent = new SessionAgent({ session, model });
 *
 * const turn = await agent.run("I prefer tea over coffee.");
 * console.log(turn.text); // the model may have called set_context to remember it
 * await agent.regenerate(turn.userMessage.id); // a second answer; the first stays reachable
 * ```
 */
export class SessionAgent {
  private readonly options: AgentOptions;
  private tail: Promise<unknown> = Promise.resolve();
  private registered = false;

  constructor(options: AgentOptions) {
    assertOptions(options);
    this.options = { ...options };
  }

  /** The session turns are stored in (for a managed agent, the manager's cached Session). */
  get session(): Session {
    const { session, manager, sessionId } = this.options;
    return session ?? manager.getSession(sessionId);
  }

  /** Appends a user message (after the active leaf) and answers it. */
  run(input: UserInput, turn: TurnOptions = {}): Promise<TurnResult> {
    return this.enqueue(async (session) => {
      const userMessage = toUserMessage(input, this.generateId);
      await session.appendMessage(userMessage);
      const stored = (await session.getMessage(userMessage.id)) ?? userMessage;
      return this.answer(session, stored, turn);
    });
  }

  /**
   * Answers a user message again (docs/behavior/agent-turns.md). The new answer is a sibling of the old one under
   * the same user message and becomes the active branch; `getBranches(userMessageId)` lists both.
   * Takes a user message id, the id of an answer (its user message is used), or nothing (the last
   * user message of the active branch).
   */
  regenerate(messageId?: string, turn: TurnOptions = {}): Promise<TurnResult> {
    return this.enqueue(async (session) =>
      this.answer(session, await regenerateTarget(session, messageId), turn),
    );
  }

  /**
   * Edits a user message by branching: a new user message with `content` is added as a sibling
   * of the original (same parent) and answered. The original and its answers stay reachable.
   * The new message's `metadata.editOf` names the original.
   */
  editUserMessage(
    messageId: string,
    content: string | SessionMessagePart[],
    turn: TurnOptions = {},
  ): Promise<TurnResult> {
    return this.enqueue(async (session) => {
      const parts = toParts(content);
      const original = await requireMessage(session, messageId);
      if (original.role !== "user") {
        throw new ArborTypeError(
          "INVALID_ARGUMENT",
          `[arbor] [agent] editUserMessage() takes a user message; "${messageId}" is ${original.role}`,
        );
      }
      const parentId = await parentOf(session, messageId);
      const edited = toUserMessage(
        { parts, metadata: { editOf: messageId } },
        this.generateId,
      );
      await session.appendMessage(edited, parentId);
      return this.answer(session, edited, turn);
    });
  }

  /**
   * Makes `leafId` the active branch, so the next `run()` continues from it (docs/behavior/messages-and-tree.md); delegates
   * to `session.switchBranch()`.
   */
  switchBranch(leafId: string): Promise<void> {
    return this.enqueue(async (session) => {
      await session.switchBranch(leafId);
    });
  }

  // --- Internal helpers ---

  private readonly generateId = (): string =>
    this.options.generateId?.() ?? crypto.randomUUID();

  private async answer(
    session: Session,
    userMessage: TurnResult["userMessage"],
    turn: TurnOptions,
  ): Promise<TurnResult> {
    const { manager, sessionId } = this.options;
    return streamTurn({
      session,
      userMessage,
      options: this.options,
      turn,
      extraTools:
        manager && this.options.sessionSearch !== false
          ? await manager.tools()
          : {},
      ...(manager
        ? {
            recordUsage: (usage) =>
              manager.addUsage(
                sessionId,
                usage.inputTokens,
                usage.outputTokens,
                usage.cost,
              ),
          }
        : {}),
    });
  }

  /** Runs turns one at a time; a managed session must exist before its first turn writes. */
  private enqueue<T>(task: (session: Session) => Promise<T>): Promise<T> {
    const run = this.tail.then(async () => {
      await this.assertRegistered();
      return task(this.session);
    });
    this.tail = run.catch(() => undefined);
    return run;
  }

  private async assertRegistered(): Promise<void> {
    const { manager, sessionId } = this.options;
    if (!manager || this.registered) return;
    if ((await manager.get(sessionId)) === null) {
      throw new ArborError(
        "SESSION_NOT_FOUND",
        `Session "${sessionId}" not found`,
      );
    }
    this.registered = true;
  }
}

/**
 * Runs one turn without keeping an agent around: `new SessionAgent(options).run(input, options)`.
 *
 * @example
 * ```ts
 * import { runTurn } from "arbor-memory/agent";
 *
 * const { text } = await runTurn({ session, model, input: "What do you remember about me?" });
 * ```
 */
export function runTurn(
  options: AgentOptions & TurnOptions & { input: UserInput },
): Promise<TurnResult> {
  return new SessionAgent(options).run(options.input, options);
}

// --- Internal helpers ---

function assertOptions(options: AgentOptions): void {
  if (typeof options !== "object" || options === null)
    throw invalid("takes an options object");
  if (
    !options.session &&
    !(options.manager && typeof options.sessionId === "string")
  )
    throw invalid("needs `session`, or `manager` and `sessionId`");
  if (!options.model) throw invalid("needs a `model`");
  const { maxSteps } = options;
  if (maxSteps !== undefined && (!Number.isInteger(maxSteps) || maxSteps < 1))
    throw invalid("needs a positive integer `maxSteps`");
}

function invalid(detail: string): TypeError {
  return new ArborTypeError(
    "INVALID_ARGUMENT",
    `[arbor] [agent] SessionAgent ${detail}`,
  );
}
