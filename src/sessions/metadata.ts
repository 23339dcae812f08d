import type { SessionMessage } from "../session/index.js";

/**
 * The message without the reserved metadata keys, for writes marked `source: "client"`: those
 * keys belong to server-side writers, and a client must not be able to forge them.
 */
export function stripReservedMetadata(
  message: SessionMessage,
  reserved: ReadonlySet<string>,
): SessionMessage {
  const metadata = message.metadata;
  if (reserved.size === 0 || !isPlainObject(metadata)) return message;
  if (!Object.keys(metadata).some((key) => reserved.has(key))) return message;
  const kept = Object.fromEntries(
    Object.entries(metadata).filter(([key]) => !reserved.has(key)),
  );
  return { ...message, metadata: kept };
}

// --- Internal helpers ---

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
