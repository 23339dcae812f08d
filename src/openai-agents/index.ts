/**
 * Arbor as the OpenAI Agents SDK's `Session` (docs/openai-agents.md): `ArborSession` keeps an
 * agent's items on any Arbor backend, each item whole and mirrored as a readable message, with
 * turns, branches from an earlier turn and usage per turn. Needs the optional peer
 * `@openai/agents-core` (or `@openai/agents`) for its types only; nothing is loaded from it.
 *
 * @module arbor-memory/openai-agents
 */
export { ArborSession } from "./arbor-session.js";
export type {
  ArborSessionOptions,
  RunUsageSource,
  SessionUsage,
  TurnInfo,
  TurnUsage,
} from "./types.js";
