import type { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { SessionInfo } from "../session/contracts/session-info.js";
import type { SessionMessage } from "../session/contracts/types.js";
import { ArborError, SessionAccessError } from "../session/errors/index.js";
import type { SessionManager } from "../session/manager/session-manager.js";
import type { Session } from "../session/facade/session.js";
import type { LargeAnswers } from "./reliability/large-answer-lane.js";
import type { MessageSchema } from "./schemas/common.js";

/** The app's Hono environment: the tenant of the request, `null` without auth. */
export interface ServerEnv {
  Variables: {
    tenant: string | null;
    /**
     * Gives the request's turn (`maxInFlight`) back before its work ends, once what is left is
     * waiting rather than work: a streamed answer calls it before it waits for its first window
     * (load-limits.ts). Unset outside the limited routes; calling it again does nothing.
     */
    releaseTurn?: () => void;
  };
}

/** What every route works on. */
export interface ServerDeps {
  manager: SessionManager;
  /** Milliseconds a request waits for the one with its `Idempotency-Key` that still runs. */
  idempotencyWaitMs?: number;
  /** Which histories answer large: their requests take turns in a lane of their own. */
  largeAnswers?: LargeAnswers;
}

/** The registry row plus owner, metadata and the number of stored messages (all branches). */
export interface SessionView extends SessionInfo {
  ownerId: string | null;
  metadata: Record<string, string>;
  messageCount: number;
}

/** The tenant of the request, or `null` when the app runs without auth. */
export function tenantOf(c: Context<ServerEnv>): string | null {
  return c.get("tenant") ?? null;
}

/**
 * The session behind `{id}`, if this request may reach it. A missing session and another
 * tenant's one throw the same `SessionAccessError`, so they answer the same 404.
 */
export async function openSession(
  deps: ServerDeps,
  c: Context<ServerEnv>,
  id: string,
): Promise<Session> {
  const tenant = tenantOf(c);
  if (tenant !== null) return deps.manager.resume(id, tenant);
  if (!(await deps.manager.get(id)))
    throw new SessionAccessError("SESSION_NOT_FOUND", id);
  return deps.manager.getSession(id);
}

/**
 * `read` of the session behind `{id}`, under the access check of `openSession`. Without auth the
 * read goes first and only an empty answer is checked: a session is registered by its first
 * message, so stored messages show it is there, and the common read costs no registry lookup (an
 * unknown session still answers 404, also when the read itself failed). With auth the tenant's
 * check comes first.
 */
export async function readSession<T>(
  deps: ServerDeps,
  c: Context<ServerEnv>,
  id: string,
  read: (session: Session) => Promise<T>,
  isEmpty: (answer: T) => boolean,
): Promise<T> {
  if (tenantOf(c) !== null) return read(await openSession(deps, c, id));
  let answer: T;
  try {
    answer = await read(deps.manager.getSession(id));
  } catch (error) {
    await openSession(deps, c, id);
    throw error;
  }
  if (isEmpty(answer)) await openSession(deps, c, id);
  return answer;
}

/** The session's row after an access check (see `openSession`). */
export async function requireInfo(
  deps: ServerDeps,
  c: Context<ServerEnv>,
  id: string,
): Promise<SessionInfo> {
  await openSession(deps, c, id);
  const info = await deps.manager.get(id);
  if (!info) throw new SessionAccessError("SESSION_NOT_FOUND", id);
  return info;
}

/** A stored message of the session, or `MESSAGE_NOT_FOUND`. */
export async function requireMessage(
  session: Session,
  sessionId: string,
  messageId: string,
): Promise<SessionMessage> {
  const message = await session.getMessage(messageId);
  if (!message) throw messageNotFound(sessionId, messageId);
  return message;
}

export function messageNotFound(
  sessionId: string,
  messageId: string,
): ArborError {
  return new ArborError(
    "MESSAGE_NOT_FOUND",
    `Message "${messageId}" not found in session "${sessionId}"`,
  );
}

/** The `SessionView` of a row. */
export async function sessionView(
  manager: SessionManager,
  info: SessionInfo,
): Promise<SessionView> {
  const [ownerId, metadata, messageCount] = await Promise.all([
    manager.getOwner(info.id),
    manager.listMetadata(info.id),
    manager.getSession(info.id).countMessages(),
  ]);
  return { ...info, ownerId, metadata, messageCount };
}

/**
 * The `SessionView` of a session this request has just created: its owner and metadata are the
 * ones it wrote and it has no message yet, so nothing is read back. Metadata keys in the order a
 * read gives them (by code unit).
 */
export function createdView(
  info: SessionInfo,
  ownerId: string | undefined,
  metadata: Readonly<Record<string, string>> | undefined,
): SessionView {
  const sorted = Object.entries(metadata ?? {}).sort(([a], [b]) =>
    a < b ? -1 : a > b ? 1 : 0,
  );
  return {
    ...info,
    ownerId: ownerId ?? null,
    metadata: Object.fromEntries(sorted),
    messageCount: 0,
  };
}

/** A message as the API sends it (the `Message` schema). */
export type WireMessage = z.infer<typeof MessageSchema>;

/** Messages as JSON data: a stored `createdAt` Date becomes its ISO string. */
export function toWire(message: SessionMessage): WireMessage {
  const { createdAt, ...rest } = message;
  const data =
    createdAt instanceof Date
      ? { ...rest, createdAt: createdAt.toISOString() }
      : { ...message };
  return data;
}
