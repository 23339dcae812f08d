import { ArborError } from "../session/errors/index.js";
import type { SessionMessage } from "../session/contracts/types.js";
import { sanitizeToolPairs } from "./compaction/sanitize-tool-pairs.js";
import {
  composeHistoryFilters,
  type HistoryFilter,
} from "./history-filters.js";
import {
  truncateOlderMessages,
  type TruncateOptions,
} from "./truncation/truncate.js";

/** The message docs/behavior/agent-turns.md gives when a turn has nothing to send. */
export const NO_MESSAGES_ERROR = "No messages to send to the model.";

/**
 * What `assembleContext` reads from a session: any object with these methods will do.
 * `readSystemPrompt` is needed only for `{ freeze: false }`.
 */
export interface ContextSource {
  freezeSystemPrompt(): Promise<string>;
  readSystemPrompt?(): Promise<{ current: string; frozen: string | null }>;
  getHistory(leafId?: string | null): Promise<SessionMessage[]>;
}

export interface AssembleContextOptions {
  /** Used when the frozen prompt is empty (no blocks, or blocks with no content). */
  fallbackSystemPrompt?: string;
  /** Read-time truncation of older messages (docs/behavior/overlays.md); `false` sends them whole. */
  truncate?: TruncateOptions | false;
  /** History filters (docs/behavior/agent-turns.md), applied in order after truncation. */
  filters?: readonly HistoryFilter[];
  /** Read the path to this message instead of the active branch (a regenerate, an edit). */
  leafId?: string;
  /**
   * `true` (the default): freeze the system prompt if none is frozen yet, because what is built
   * here is sent, and later turns must send the same prompt. `false`: write nothing and use the
   * frozen prompt, or what the blocks render now while none is frozen (a preview of the next turn).
   */
  freeze?: boolean;
}

/** The system prompt and the messages to send, still as `SessionMessage`s (AI SDK `UIMessage`s). */
export interface AssembledContext {
  system: string;
  messages: SessionMessage[];
}

/**
 * Builds what a turn sends to the model (docs/behavior/agent-turns.md): the frozen system prompt (or the fallback
 * when it is empty), the history of the active branch with overlays applied, older messages
 * truncated, the history filters, then `sanitizeToolPairs` so no tool call or result is left
 * without its partner. Conversion to model messages is left to the host.
 *
 * Its one write is the prompt's freeze on a session with none frozen yet (the prompt sent is the
 * one later turns keep); `{ freeze: false }` writes nothing, for a view of what a turn would send.
 *
 * Truncation runs before the filters, so a token-budget filter measures what is actually sent.
 *
 * @throws ArborError `EMPTY_CONTEXT` ("No messages to send to the model.") when nothing is left.
 *
 * @example
 * ```ts
 * import { assembleContext, keepLastMessages } from "arbor-memory/utils";
 * import { convertToModelMessages, streamText } from "ai";
 *
 * const { system, messages } = await assembleContext(session, {
 *   fallbackSystemPrompt: "You are a helpful assistant.",
 *   filters: [keepLastMessages(40)],
 * });
 * streamText({ model, system, messages: await convertToModelMessages(messages) });
 * ```
 */
export async function assembleContext(
  session: ContextSource,
  options: AssembleContextOptions = {},
): Promise<AssembledContext> {
  const frozen = await systemPrompt(session, options.freeze !== false);
  const system =
    frozen.trim() === "" ? (options.fallbackSystemPrompt ?? frozen) : frozen;
  let messages = await session.getHistory(options.leafId);
  if (options.truncate !== false)
    messages = truncateOlderMessages(messages, options.truncate ?? {});
  if (options.filters && options.filters.length > 0)
    messages = await composeHistoryFilters(...options.filters)(messages);
  messages = sanitizeToolPairs(messages);
  if (messages.length === 0)
    throw new ArborError("EMPTY_CONTEXT", NO_MESSAGES_ERROR);
  return { system, messages };
}

async function systemPrompt(
  session: ContextSource,
  freeze: boolean,
): Promise<string> {
  if (freeze) return session.freezeSystemPrompt();
  if (!session.readSystemPrompt)
    throw new ArborError(
      "INVALID_ARGUMENT",
      "assembleContext({ freeze: false }) needs a session with readSystemPrompt()",
    );
  const { frozen, current } = await session.readSystemPrompt();
  return frozen ?? current;
}
