import type { SessionMessage } from "../session/contracts/types.js";
import { readMark, withMark } from "./metadata-mark.js";

/**
 * Injected context: what a coding agent puts into the conversation as a user message although
 * nobody typed it (an `AGENTS.md`, the sandbox policy, the environment, a slash command's
 * wrapper, a local command's output, a system reminder). An import stores such a message whole
 * and marks it with `metadata.injectedContext = "<kind>"`, so readers can fold it and names are
 * taken from what the user wrote. The studio reads the same mark (src/studio/app/views/chat.ts).
 */
export type InjectedContextKind =
  | "agents-md"
  | "environment-context"
  | "permissions"
  | "user-instructions"
  | "slash-command"
  | "command-output"
  | "system-reminder"
  | (string & {});

/** The metadata key of the mark. */
export const INJECTED_CONTEXT_METADATA = "injectedContext";

/** The kind of injected context the message is marked as, or `null` for a message someone wrote. */
export function injectedContextKind(message: {
  metadata?: unknown;
  [key: string]: unknown;
}): InjectedContextKind | null {
  return readMark(message, INJECTED_CONTEXT_METADATA);
}

/** True for a message marked as injected context. */
export function isInjectedContext(message: {
  metadata?: unknown;
  [key: string]: unknown;
}): boolean {
  return injectedContextKind(message) !== null;
}

/** The message with the mark added (its other metadata kept). */
export function markInjectedContext<T extends SessionMessage>(
  message: T,
  kind: InjectedContextKind,
): T {
  return withMark(message, INJECTED_CONTEXT_METADATA, kind);
}

/**
 * A slash command typed as the whole prompt (`/init`, `/review src`): a command to the tool, not
 * a prompt that names a conversation. A path (`/usr/bin is missing`) is not one.
 */
export function isSlashCommand(text: string): boolean {
  return /^\/[a-z][\w:-]*(\s|$)/i.test(text.trim());
}
