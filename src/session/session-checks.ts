import { assertMaxTokens } from "./context/context-blocks.js";
import type { ContextConfig, SessionContextOptions } from "./context/types.js";
import { isSqlProvider } from "./contracts/sql-provider.js";
import type { SessionMessage } from "./contracts/types.js";
import { REQUIRED_PROVIDER_METHODS } from "./contracts/provider.js";
import { ArborError, ArborTypeError, invalidArgument } from "./errors/index.js";
import { isPostgresClient } from "./contracts/postgres-client.js";
import { assertNewLabel } from "./session-setup.js";
import { unstorableReason } from "./core/storable-text.js";

/** The roles of an AI SDK `UIMessage`. */
const MESSAGE_ROLES: ReadonlySet<string> = new Set([
  "system",
  "user",
  "assistant",
]);

/**
 * Rejects, at once, a target that is neither a `sql` store (`Session.create()` only) nor a
 * `SessionProvider`, instead of failing at the first write. A PostgreSQL client gets the fix.
 */
export function assertSessionTarget(
  target: unknown,
  caller: "Session.create()" | "new Session()",
): void {
  const expected =
    caller === "Session.create()"
      ? "Session.create() requires a SqlProvider or SessionProvider"
      : "new Session() requires a SessionProvider";
  if (typeof target !== "object" || target === null) {
    throw new ArborTypeError(
      "INVALID_TARGET",
      "Session.create() requires a SqlProvider or SessionProvider",
    );
  }
  if (caller === "Session.create()" && isSqlProvider(target)) return;
  const has = (name: string) =>
    typeof (target as Record<string, unknown>)[name] === "function";
  // A seed-shaped provider writes with `appendMessage` instead (adaptSeedProvider).
  const missing = REQUIRED_PROVIDER_METHODS.filter(
    (name) => !has(name) && !(name === "writeMessages" && has("appendMessage")),
  );
  if (missing.length === 0) return;
  if (isPostgresClient(target)) {
    const wrapped =
      caller === "Session.create()"
        ? "Session.create(new PostgresSessionProvider(pool))"
        : "new Session(new PostgresSessionProvider(pool))";
    throw new ArborTypeError(
      "INVALID_TARGET",
      `${expected}; this looks like a PostgreSQL client (pg Pool or Client, or a connection with execute()): use ${wrapped}`,
    );
  }
  const lacking = `it lacks the SessionProvider methods ${missing
    .map((name) =>
      name === "writeMessages"
        ? "writeMessages (or the seed's appendMessage)"
        : name,
    )
    .join(", ")}`;
  throw new ArborTypeError(
    "INVALID_TARGET",
    caller === "Session.create()"
      ? `${expected}; the object has no \`sql\` tagged template and ${lacking}`
      : `${expected} (a \`sql\` store goes to Session.create()); ${lacking}`,
  );
}

/** Builder calls record configuration before first use only. */
export function assertBuilder(initialized: boolean): void {
  if (initialized) {
    throw new ArborError(
      "SESSION_ALREADY_INITIALIZED",
      "Session is already initialized; use addContext() for runtime blocks",
    );
  }
}

export function assertSessionId(sessionId: unknown): string {
  if (typeof sessionId !== "string") {
    throw invalidArgument("forSession() takes a string id");
  }
  const reason = unstorableReason(sessionId);
  if (reason)
    throw invalidArgument(
      `forSession() takes an id a database keeps exactly; ${JSON.stringify(sessionId.slice(0, 80))} ${reason}`,
    );
  return sessionId;
}

/** A block configuration: a free, unreserved label and a sensible `maxTokens`. */
export function assertContextConfig(
  labels: readonly string[],
  label: string,
  options: SessionContextOptions = {},
): void {
  assertNewLabel(labels, label);
  assertMaxTokens(label, options.maxTokens);
}

/** The constructor's `context` option: every block valid, no label twice. */
export function assertContextConfigs(configs: readonly ContextConfig[]): void {
  configs.reduce<string[]>((labels, config) => {
    assertContextConfig(labels, config.label, config);
    return [...labels, config.label];
  }, []);
}

export function assertAuditSink(sink: unknown): void {
  if (typeof (sink as { record?: unknown } | null)?.record !== "function") {
    throw invalidArgument(
      "withAudit() needs a sink with a record(event) method",
    );
  }
}

export function assertCompactionFunction(compactFunction: unknown): void {
  if (typeof compactFunction !== "function") {
    throw invalidArgument("onCompaction() takes a function");
  }
}

export function assertThreshold(threshold: unknown): void {
  if (
    typeof threshold !== "number" ||
    !Number.isFinite(threshold) ||
    threshold < 0
  ) {
    throw invalidArgument(
      "compactAfter() takes a finite, non-negative token threshold",
    );
  }
}

export function assertContent(content: unknown): string {
  if (typeof content !== "string") {
    throw invalidArgument("Block content must be a string");
  }
  return content;
}

/**
 * Only the roles of an AI SDK `UIMessage` are written: a `tool` or `data` message would be
 * replayed to the model as something it never sent. Checked on writes only, so rows stored by
 * older versions stay readable.
 */
export function assertMessageRole(message: SessionMessage): void {
  if (!MESSAGE_ROLES.has(message.role)) {
    throw new ArborTypeError(
      "INVALID_MESSAGE",
      `[arbor] Invalid message: \`role\` of message "${message.id}" must be "system", "user" or "assistant" (got ${JSON.stringify(message.role)})`,
    );
  }
}
