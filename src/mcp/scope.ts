import {
  ArborError,
  isCompactionMessage,
  SessionAccessError,
  type Session,
  type SessionInfo,
  type SessionManager,
} from "../session/index.js";

/** The default token budget of one tool answer or resource read. */
export const DEFAULT_TOKEN_BUDGET = 4_000;
/** The most items one page may hold, whatever `limit` asks. */
export const MAX_PAGE_SIZE = 100;

/**
 * What one MCP connection may reach: the manager and, when set, the one owner (tenant) whose
 * sessions it sees. `ownerId: null` sees every session of the store, as the CLI does.
 */
export interface McpScope {
  manager: SessionManager;
  ownerId: string | null;
  /** Tokens one answer may take (estimated), at least 200. */
  tokenBudget: number;
}

/**
 * The session behind `id` if this scope may reach it. A missing session and another owner's one
 * throw the same `SessionAccessError`, so a tenant learns nothing about ids it does not own.
 */
export async function openScopedSession(
  scope: McpScope,
  id: string,
): Promise<{ session: Session; info: SessionInfo }> {
  const { manager, ownerId } = scope;
  const session =
    ownerId !== null
      ? await manager.resume(id, ownerId)
      : manager.getSession(id);
  const info = await manager.get(id);
  if (!info) throw new SessionAccessError("SESSION_NOT_FOUND", id);
  return { session, info };
}

/** A stored message of the session, or `MESSAGE_NOT_FOUND` naming both ids. */
export async function requireMessage(
  session: Session,
  sessionId: string,
  messageId: string,
) {
  const message = await session.getMessage(messageId);
  if (!message) {
    const hint = isCompactionMessage({ id: messageId })
      ? ": it is a compaction summary, which stands for the messages it covers and has no branches of its own"
      : "";
    throw new ArborError(
      "MESSAGE_NOT_FOUND",
      `No message "${messageId}" in session "${sessionId}"${hint}`,
    );
  }
  return message;
}
