/*
 * Which audit events an erase forgets (docs/behavior/erase-and-retention.md), apart from the
 * other erase rules: the audit sinks load with every session entry, the rules only with erase.
 */
import type { AuditEvent } from "../contracts/audit.js";
import type { AuditEraseTarget } from "../contracts/erase.js";

/**
 * Whether `value` holds an object whose `id` is one of `ids`: an audit payload that quotes an
 * erased message (`message`, the `messages` of a context event) or overlay (`compaction`, or
 * its `compaction_<id>` entry in a read path). A mere reference, such as a `parentId`, is not one.
 */
export function quotesAny(value: unknown, ids: ReadonlySet<string>): boolean {
  if (Array.isArray(value)) return value.some((item) => quotesAny(item, ids));
  if (value === null || typeof value !== "object") return false;
  const id = (value as { id?: unknown }).id;
  if (typeof id === "string" && ids.has(id)) return true;
  return Object.values(value).some((item) => quotesAny(item, ids));
}

/** Whether an audit sink's `erase(target)` forgets this event. */
export function auditEventErased(
  event: Pick<AuditEvent, "sessionId" | "payload">,
  target: AuditEraseTarget,
): boolean {
  if (event.sessionId !== target.sessionId) return false;
  if (target.ids === null) return true;
  const ids = new Set(target.ids);
  for (const id of target.ids) ids.add(`compaction_${id}`);
  return quotesAny(event.payload, ids);
}
