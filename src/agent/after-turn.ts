import type { AgentModelMessage as ModelMessage } from "./ai-types.js";
import type { SessionMessage } from "../session/index.js";
import { messageOf } from "../session/facade/status.js";
import type { TurnPlan, TurnUsage } from "./types.js";

/** What a turn sent to the model, for `session.recordContext()` (docs/behavior/events-and-audit.md). */
export interface SentContext {
  system: string;
  messages: ModelMessage[];
  /** Names of the tools offered. */
  tools: string[];
  /** The stored answer. */
  response: SessionMessage | null;
}

/**
 * After a turn (docs/behavior/agent-turns.md step 6): usage to the manager, the prompt refresh so the model sees its
 * own memory writes next turn, then the sent context to the audit sink. A usage or audit failure
 * is logged, never thrown: the turn is already stored. A refresh failure is thrown unless the
 * turn already failed (its own error wins).
 */
export async function afterTurn(
  plan: TurnPlan,
  usage: TurnUsage,
  failed: boolean,
  context: SentContext,
): Promise<void> {
  if (
    plan.recordUsage &&
    (usage.inputTokens > 0 || usage.outputTokens > 0 || usage.cost > 0)
  ) {
    await plan.recordUsage(usage).catch((error: unknown) => {
      console.warn(
        `[arbor] [agent] Recording usage failed: ${messageOf(error)}`,
      );
    });
  }
  try {
    await plan.session.refreshSystemPrompt();
  } catch (error) {
    if (!failed) throw error;
    console.warn(
      `[arbor] [agent] Refreshing the system prompt failed: ${messageOf(error)}`,
    );
  }
  try {
    // Recorded only when the session has `withAudit(sink, { includeContext: true })`.
    plan.session.recordContext(context);
  } catch (error) {
    console.warn(`[arbor] [agent] recordContext failed: ${messageOf(error)}`);
  }
}
