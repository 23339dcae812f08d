import { COMPACTION_PREFIX, type SessionMessage } from "../session/index.js";

/** True for an overlay's id: overlays are derived at read time and never written as rows. */
export function isOverlayId(message: SessionMessage): boolean {
  return (
    typeof message === "object" &&
    message !== null &&
    typeof message.id === "string" &&
    message.id.startsWith(COMPACTION_PREFIX)
  );
}

/**
 * Whether writing `incoming` over `stored` would change nothing: same JSON with keys in any
 * order, and an absent `createdAt` keeping the stored one (as an update does).
 */
export function sameContent(
  stored: SessionMessage,
  incoming: SessionMessage,
): boolean {
  const merged = {
    ...incoming,
    createdAt: incoming.createdAt ?? stored.createdAt,
  };
  return canonical(stored) === canonical(merged);
}

// --- Internal helpers ---

function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, entry: unknown) => {
    if (typeof entry !== "object" || entry === null || Array.isArray(entry))
      return entry;
    const record = entry as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(record)
        .sort()
        .map((name) => [name, record[name]]),
    );
  });
}
