import type {
  ListPosition,
  RegistryListOptions,
  SessionRegistry,
} from "../contracts/registry.js";
import type { SessionInfo } from "../contracts/session-info.js";
import { unstorableReason } from "../messages/storable-text.js";
import { ArborError, invalidArgument } from "../errors/index.js";
import type {
  CreateSessionOptions,
  ListSessionsOptions,
} from "./manager-options.js";

/** The registry row of a new session: a random id, zero usage, created and updated now. */
export function newSessionInfo(
  name: string,
  options: CreateSessionOptions,
): SessionInfo {
  assertText(name, "create() needs the session name");
  if (typeof options !== "object" || options === null)
    throw invalidArgument("create() takes its options as an object");
  for (const key of [
    "id",
    "parentSessionId",
    "model",
    "source",
    "ownerId",
  ] as const)
    if (options[key] !== undefined)
      assertText(options[key], `create() needs \`${key}\``);
  if (options.metadata !== undefined) {
    if (typeof options.metadata !== "object" || options.metadata === null)
      throw invalidArgument(
        "create() needs `metadata` as an object of strings",
      );
    for (const value of Object.values(options.metadata))
      assertText(value, "create() needs every `metadata` value");
  }
  const now = new Date().toISOString();
  if (options.id === "")
    throw invalidArgument("create() needs `id` as a non-empty string");
  return {
    id: options.id ?? crypto.randomUUID(),
    name,
    parent_session_id: options.parentSessionId ?? null,
    model: options.model ?? null,
    source: options.source ?? null,
    input_tokens: 0,
    output_tokens: 0,
    estimated_cost: 0,
    end_reason: null,
    created_at: now,
    updated_at: now,
  };
}

/**
 * Rejects a value that is not a string before it reaches a registry row (a driver would throw
 * its own error, or store `[object Object]`): `INVALID_ARGUMENT` naming the argument.
 */
export function assertText(
  value: unknown,
  what: string,
): asserts value is string {
  if (typeof value !== "string")
    throw invalidArgument(
      `${what} as a string, got ${value === null ? "null" : typeof value}`,
    );
  const reason = unstorableReason(value);
  if (reason)
    throw invalidArgument(
      `${what} as a string a database keeps exactly; ${JSON.stringify(value.slice(0, 80))} ${reason}`,
    );
}

/** `SESSION_EXISTS` for an id that already has a session. */
export function sessionExists(id: string): ArborError {
  return new ArborError("SESSION_EXISTS", `Session "${id}" already exists`);
}

/** The session's row; `SESSION_NOT_FOUND` when there is none. */
export async function requireRow(
  registry: SessionRegistry,
  sessionId: string,
): Promise<SessionInfo> {
  const info = await registry.get(sessionId);
  if (!info) throw sessionNotFound(sessionId);
  return info;
}

export function sessionNotFound(sessionId: string): ArborError {
  return new ArborError(
    "SESSION_NOT_FOUND",
    `Session "${sessionId}" not found`,
  );
}

/** Adds usage to the session's counters; `INVALID_ARGUMENT` for non-finite numbers. */
export async function addUsage(
  registry: SessionRegistry,
  sessionId: string,
  inputTokens: number,
  outputTokens: number,
  cost: number,
): Promise<void> {
  for (const [name, value] of [
    ["inputTokens", inputTokens],
    ["outputTokens", outputTokens],
    ["cost", cost],
  ] as const) {
    if (typeof value !== "number" || !Number.isFinite(value)) {
      throw invalidArgument(
        `addUsage() needs a finite number for \`${name}\`, got ${String(value)}`,
      );
    }
  }
  const updated = await registry.addUsage(
    sessionId,
    inputTokens,
    outputTokens,
    cost,
    new Date().toISOString(),
  );
  if (!updated) throw sessionNotFound(sessionId);
}

/** One page of the registry in list order, and the cursor of the next (`null` after the last). */
export async function listPage(
  registry: SessionRegistry,
  options: ListSessionsOptions,
): Promise<{ sessions: SessionInfo[]; nextCursor: string | null }> {
  const { query, limit } = registryQuery(options);
  const sessions = await registry.list(query);
  return { sessions, nextCursor: nextCursor(sessions, limit) };
}

/** The registry's list options for a page, and the page's limit. */
export function registryQuery(options: ListSessionsOptions): {
  query: RegistryListOptions;
  limit: number | undefined;
} {
  const limit =
    Number.isInteger(options.limit) && (options.limit as number) > 0
      ? options.limit
      : undefined;
  const query = {
    ...(options.ownerId !== undefined ? { ownerId: options.ownerId } : {}),
    ...(limit !== undefined ? { limit } : {}),
    ...(options.cursor ? { after: decodeCursor(options.cursor) } : {}),
    ...(options.parentSessionId !== undefined
      ? { parentSessionId: options.parentSessionId }
      : {}),
  };
  return { query, limit };
}

/** The cursor after `sessions`, a page of at most `limit`; `null` after the last page. */
export function nextCursor(
  sessions: readonly SessionInfo[],
  limit: number | undefined,
): string | null {
  const last = sessions.at(-1);
  return limit !== undefined && last && sessions.length === limit
    ? encodeCursor(last)
    : null;
}

// --- Internal helpers ---

function encodeCursor(row: ListPosition): string {
  return encodeURIComponent(
    JSON.stringify([row.updated_at, row.created_at, row.id]),
  );
}

function decodeCursor(cursor: string): ListPosition {
  try {
    const [updated_at, created_at, id] = JSON.parse(
      decodeURIComponent(cursor),
    ) as string[];
    if (
      typeof updated_at === "string" &&
      typeof created_at === "string" &&
      typeof id === "string"
    ) {
      return { updated_at, created_at, id };
    }
  } catch {
    // A malformed cursor gets the same error as a well-formed one of the wrong shape.
  }
  throw invalidArgument(
    "Invalid list cursor; pass the nextCursor of listPage()",
  );
}
