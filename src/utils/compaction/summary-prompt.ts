import { isToolPart, toolNameOf } from "../../session/messages/tool-parts.js";
import type {
  SessionMessage,
  SessionMessagePart,
} from "../../session/contracts/types.js";
import { jsonText } from "../../session/messages/json-text.js";
import { estimateMessageTokens } from "../tokens/estimate.js";

const MIN_SUMMARY_BUDGET = 100;
const SUMMARY_BUDGET_RATIO = 0.2;
const TOOL_PREVIEW_CHARS = 500;
const MESSAGE_SEPARATOR = "\n\n---\n\n";

const STRUCTURE = [
  "## Topic",
  "[What the conversation is about]",
  "",
  "## Key Points",
  "[Important information, decisions and conclusions]",
  "",
  "## Current State",
  "[What is done and what is still in progress]",
  "",
  "## Open Items",
  "[Unresolved questions, pending tasks and next steps]",
].join("\n");

/**
 * Target length of a summary (docs/behavior/overlays.md step 8): a fifth of the summarized messages' heuristic
 * estimate, at least 100 tokens.
 */
export function computeSummaryBudget(
  messages: readonly SessionMessage[],
): number {
  return Math.max(
    MIN_SUMMARY_BUDGET,
    Math.floor(SUMMARY_BUDGET_RATIO * estimateMessageTokens(messages)),
  );
}

/**
 * The prompt for the summarizer (docs/behavior/overlays.md): the transcript of `messages` and the four sections
 * Topic, Key Points, Current State and Open Items. With a `previousSummary` it asks to merge the new
 * turns into it, so repeated compactions extend one summary instead of summarizing a summary.
 */
export function buildSummaryPrompt(
  messages: readonly SessionMessage[],
  previousSummary: string | null,
  budget: number,
): string {
  const transcript = renderTranscript(messages);
  const closing = `Target ~${budget} tokens. State only facts from the conversation; do not invent file paths, commands or other details. Reply with the summary body only, without a preamble.`;
  if (previousSummary === null) {
    return [
      "Write a concise summary of the conversation below. Keep everything later turns will need: the user's goals and preferences, facts, decisions, names, numbers and the results of tool calls.",
      `CONVERSATION TO SUMMARIZE:\n\n${transcript}`,
      `Structure the summary with these sections:\n\n${STRUCTURE}`,
      closing,
    ].join("\n\n");
  }
  return [
    "A summary of the earlier part of this conversation already exists. Merge the new turns below into it and write one updated summary.",
    `PREVIOUS SUMMARY:\n\n${previousSummary}`,
    `NEW TURNS TO INCORPORATE:\n\n${transcript}`,
    "Keep every fact from the previous summary that is still relevant, add the new information, and drop only what is clearly obsolete.",
    `Structure the summary with these sections:\n\n${STRUCTURE}`,
    closing,
  ].join("\n\n");
}

// --- Internal helpers ---

function renderTranscript(messages: readonly SessionMessage[]): string {
  return messages.map(renderMessage).join(MESSAGE_SEPARATOR);
}

function renderMessage(message: SessionMessage): string {
  const lines = [`[${message.role}]`];
  const texts = message.parts
    .filter((part) => part.type === "text" && typeof part.text === "string")
    .map((part) => part.text as string);
  if (texts.length > 0) lines.push(texts.join("\n"));
  for (const part of message.parts) {
    if (isToolPart(part)) lines.push(renderToolPart(part));
  }
  return lines.join("\n");
}

function renderToolPart(part: SessionMessagePart): string {
  const lines = [`[Tool: ${toolNameOf(part) ?? "unknown"}]`];
  if (part.input) lines.push(`Input: ${preview(jsonText(part.input))}`);
  // `result` is the field of legacy result parts that carry no `output`.
  const output = part.output ?? part.result;
  if (output) {
    const text = typeof output === "string" ? output : jsonText(output);
    lines.push(`Output: ${preview(text)}`);
  }
  return lines.join("\n");
}

function preview(text: string): string {
  return text.slice(0, TOOL_PREVIEW_CHARS);
}
