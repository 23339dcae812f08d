import { assertMaxTokens } from "../context/context-blocks.js";
import type { ContextConfig, SessionContextOptions } from "../context/types.js";
import { ArborError, invalidArgument } from "../errors/index.js";
import { assertNewLabel } from "./session-setup.js";
import { unstorableReason } from "../messages/storable-text.js";

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
