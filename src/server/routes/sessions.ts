import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import {
  openSession,
  requireInfo,
  createdView,
  sessionView,
  tenantOf,
  type ServerDeps,
  type ServerEnv,
} from "../context.js";
import {
  idempotentRequest,
  idempotently,
  retried,
  sessionIdFor,
} from "../idempotency.js";
import { errors, json, jsonBody, SessionParams } from "../schemas/common.js";
import {
  CreateSessionBody,
  ForkBody,
  ListSessionsQuery,
  RenameSessionBody,
  SessionPageSchema,
  SessionViewSchema,
} from "../schemas/sessions.js";
import { declaredAnswer } from "../responses/declared-answer.js";
import { ArborError } from "../../session/errors/index.js";

const tags = ["Sessions"];

export const listSessions = createRoute({
  method: "get",
  path: "/v1/sessions",
  tags,
  summary: "List sessions, most recently updated first",
  request: { query: ListSessionsQuery },
  responses: { 200: json(SessionPageSchema, "One page"), ...errors() },
});

export const createSession = createRoute({
  method: "post",
  path: "/v1/sessions",
  tags,
  summary: "Create a session (retry safely with an Idempotency-Key)",
  request: { body: jsonBody(CreateSessionBody) },
  responses: {
    201: json(SessionViewSchema, "The new session"),
    ...errors(413, 415, 422),
  },
});

export const getSession = createRoute({
  method: "get",
  path: "/v1/sessions/{id}",
  tags,
  summary: "Get a session",
  request: { params: SessionParams },
  responses: { 200: json(SessionViewSchema, "The session"), ...errors(404) },
});

export const renameSession = createRoute({
  method: "patch",
  path: "/v1/sessions/{id}",
  tags,
  summary: "Rename a session",
  request: { params: SessionParams, body: jsonBody(RenameSessionBody) },
  responses: {
    200: json(SessionViewSchema, "The renamed session"),
    ...errors(404, 413, 415),
  },
});

export const deleteSession = createRoute({
  method: "delete",
  path: "/v1/sessions/{id}",
  tags,
  summary:
    "Erase a session and everything derived from it: messages, overlays, blocks, search index, embeddings, attachments, audit events",
  request: { params: SessionParams },
  responses: { 204: { description: "Erased" }, ...errors(404) },
});

export const forkSession = createRoute({
  method: "post",
  path: "/v1/sessions/{id}/fork",
  tags,
  summary:
    "Fork a session at a message into a new session (retry safely with an Idempotency-Key)",
  request: { params: SessionParams, body: jsonBody(ForkBody) },
  responses: {
    201: json(SessionViewSchema, "The new session"),
    ...errors(404, 413, 415, 422),
  },
});

/** Registry routes: list, create, get, rename, delete, fork. */
export function sessionRoutes(
  app: OpenAPIHono<ServerEnv>,
  deps: ServerDeps,
): void {
  const { manager } = deps;
  app.openapi(listSessions, async (c) => {
    const { limit, cursor, owner, parent } = c.req.valid("query");
    const ownerId = tenantOf(c) ?? owner;
    // One query per page on the built-in backends, whatever its length (docs/server.md#sessions).
    const page = await manager.listDetailedPage({
      limit: limit ?? 50,
      ...(cursor ? { cursor } : {}),
      ...(ownerId !== undefined ? { ownerId } : {}),
      ...(parent !== undefined
        ? { parentSessionId: parent === "none" ? null : parent }
        : {}),
    });
    const sessions = page.sessions.map(
      ({ info, ownerId, metadata, messageCount, childCount }) => ({
        ...info,
        ownerId,
        metadata,
        messageCount,
        childCount,
      }),
    );
    return c.json({ sessions, nextCursor: page.nextCursor }, 200);
  });

  app.openapi(createSession, async (c) => {
    const body = c.req.valid("json");
    const idempotent = await idempotentRequest(c, JSON.stringify(body));
    const ownerId = tenantOf(c) ?? body.ownerId;
    // Under a key the id comes from it: a retry whose first attempt committed without storing
    // its answer meets that session (SESSION_EXISTS) and answers it.
    const id = await sessionIdFor(c);
    const response = await idempotently(deps, c, idempotent, async () => {
      const info = await retried(
        () =>
          manager.create(body.name, {
            ...(id !== null ? { id } : {}),
            ...(ownerId !== undefined ? { ownerId } : {}),
            ...(body.metadata ? { metadata: body.metadata } : {}),
            ...(body.model !== undefined ? { model: body.model } : {}),
            ...(body.source !== undefined ? { source: body.source } : {}),
          }),
        id,
        (existing) => requireInfo(deps, c, existing),
      );
      return {
        status: 201,
        // A session this request made is what it sent: nothing to read back (three statements
        // fewer on PostgreSQL). A replayed one was made by an earlier attempt: read it.
        body: info.replayed
          ? await sessionView(manager, info.session)
          : createdView(info.session, ownerId, body.metadata),
        replayed: info.replayed,
      };
    });
    return declaredAnswer(response);
  });

  app.openapi(getSession, async (c) => {
    const info = await requireInfo(deps, c, c.req.valid("param").id);
    return c.json(await sessionView(manager, info), 200);
  });

  app.openapi(renameSession, async (c) => {
    const { id } = c.req.valid("param");
    await openSession(deps, c, id);
    await manager.rename(id, c.req.valid("json").name);
    return c.json(
      await sessionView(manager, await requireInfo(deps, c, id)),
      200,
    );
  });

  app.openapi(deleteSession, async (c) => {
    const { id } = c.req.valid("param");
    await openSession(deps, c, id);
    try {
      // `erase`, not `delete`: the embeddings, attachments and audit events derived from the
      // session go with it (docs/server.md#sessions).
      await manager.erase({ sessionId: id });
    } catch (error) {
      // A manager over a registry and provider of its own (no `Backend`) has no erase: there the
      // rows the manager owns go, as `delete()` removes them.
      if (!(error instanceof ArborError) || error.code !== "NOT_SUPPORTED")
        throw error;
      await manager.delete(id);
    }
    return c.body(null, 204);
  });

  app.openapi(forkSession, async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const source = await requireInfo(deps, c, id);
    const idempotent = await idempotentRequest(c, JSON.stringify(body));
    // Under a key the fork's id comes from it, and `fork` finds (and completes) the fork an
    // earlier attempt made, so a retry after an ambiguous failure answers that fork.
    const newId = await sessionIdFor(c, id);
    const response = await idempotently(deps, c, idempotent, async () => {
      const info = await manager.fork(
        id,
        body.messageId,
        body.name ?? `${source.name} (fork)`,
        newId !== null ? { newId } : {},
      );
      return { status: 201, body: await sessionView(manager, info) };
    });
    return declaredAnswer(response);
  });
}
