import type { SessionMessage } from "../session/contracts/types.js";

/**
 * A mark an import leaves on a message: one non-empty string under one metadata key (what kind of
 * injected context it is, the parent a trimmed file lacked). Reads tolerate any metadata shape,
 * since stored messages come from every importer and from hand-written files.
 */
export function readMark(
  message: { metadata?: unknown; [key: string]: unknown },
  key: string,
): string | null {
  const metadata = message.metadata;
  if (typeof metadata !== "object" || metadata === null) return null;
  const value = (metadata as Record<string, unknown>)[key];
  return typeof value === "string" && value !== "" ? value : null;
}

/** The message with `key` set to `value` in its metadata, the rest of its metadata kept. */
export function withMark<T extends SessionMessage>(
  message: T,
  key: string,
  value: string,
): T {
  const metadata =
    typeof message.metadata === "object" && message.metadata !== null
      ? (message.metadata as Record<string, unknown>)
      : {};
  return { ...message, metadata: { ...metadata, [key]: value } };
}
