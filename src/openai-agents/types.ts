import type { SessionManager } from "../session/index.js";
import type { TurnUsage } from "./item-mirror.js";

export type { TurnUsage } from "./item-mirror.js";

/** Options of `new ArborSession()`. */
export interface ArborSessionOptions {
  /** The manager over the store: `SessionManager.create(sqliteBackend("agent.db"))`, for example. */
  manager: SessionManager;
  /** The Arbor session to continue or start. Default: a new random id. */
  sessionId?: string;
  /** The name a new session is registered with. Default `"OpenAI Agents session"`. */
  name?: string;
}

/** One turn of the active branch, as `listTurns()` gives it. */
export interface TurnInfo {
  /** 1 for the first user message of the branch. */
  turn: number;
  /** The Arbor message of the turn's user message: `switchBranch()` takes it. */
  messageId: string;
  /** The user message's text. */
  text: string;
  /** What the runs stored with `storeRunUsage()` for this turn used, when any was stored. */
  usage?: TurnUsage;
}

/** What `storeRunUsage()` reads of a run result: the usage of each model response. */
export interface RunUsageSource {
  readonly rawResponses: ReadonlyArray<{
    readonly usage?: Partial<TurnUsage>;
  }>;
}

/** The session's counters, over every branch. */
export interface SessionUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}
