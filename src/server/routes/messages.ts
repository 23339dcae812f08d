import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { ArborError, isArborError } from "../../session/errors/index.js";
import {
  messageNotFound,
  openSession,
  requireMessage,
  tenantOf,
  toWire,
  type ServerDeps,
  type ServerEnv,
} from "../context.js";
import { errorResponse } from "../errors.js";
import { messageIdFor } from "../idempotency.js";
import {
  errors,
  json,
  jsonBody,
  MessageParams,
  SessionParams,
} from "../schemas/common.js";
import {
  AppendBody,
  MessageEnvelope,
  MessagesSchema,
  UpdateBody,
} from "../schemas/messages.js";
import { declaredAnswer } from "../responses/declared-answer.js";

const tags = ["Messages"];

export const appendMessage = createRoute({
  method: "post",
  path: "/v1/sessions/{id}/messages",
  tags,
  summary:
    "Append a message (after the active leaf, under `parentId`, or as a root); a retry of the same id and body answers 200, a different body 409; under an Idempotency-Key a retry answers 201 as the first attempt",
  request: { params: SessionParams, body: jsonBody(AppendBody) },
  responses: {
    201: json(MessageEnvelope, "The stored message"),
    200: json(
      MessageEnvelope,
      "The id was already stored with the same body (a retry): the stored message",
    ),
    ...errors(404, 409, 413, 415, 422),
  },
});

export const getMessage = createRoute({
  method: "get",
  path: "/v1/sessions/{id}/messages/{messageId}",
  tags,
  summary: "A stored message, without overlays",
  request: { params: MessageParams },
  responses: { 200: json(MessageEnvelope, "The message"), ...errors(404) },
});

export const updateMessage = createRoute({
  method: "put",
  path: "/v1/sessions/{id}/messages/{messageId}",
  tags,
  summary: "Replace a message's content (its place in the tree is kept)",
  request: { params: MessageParams, body: jsonBody(UpdateBody) },
  responses: {
    200: json(MessageEnvelope, "The stored message"),
    ...errors(404, 413, 415),
  },
});

export const deleteMessage = createRoute({
  method: "delete",
  path: "/v1/sessions/{id}/messages/{messageId}",
  tags,
  summary: "Delete a message; its children move up to its parent",
  request: { params: MessageParams },
  responses: { 204: { description: "Deleted" }, ...errors(404) },
});

export const getBranches = createRoute({
  method: "get",
  path: "/v1/sessions/{id}/messages/{messageId}/branches",
  tags,
  summary: "The children of a message, oldest first",
  request: { params: MessageParams },
  responses: { 200: json(MessagesSchema, "The children"), ...errors(404) },
});

/** Message writes and reads by id. */
export function messageRoutes(
  app: OpenAPIHono<ServerEnv>,
  deps: ServerDeps,
): void {
  app.openapi(appendMessage, async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    // With auth the tenant's check comes first; without, the insert itself checks that the
    // session exists (`appendToExisting`), so an append is one statement on PostgreSQL.
    const checked = tenantOf(c) !== null;
    if (checked) await openSession(deps, c, id);
    // Without an id, an Idempotency-Key names the message: its retry is the same id.
    const keyed =
      body.message.id === undefined ? await messageIdFor(c, id) : null;
    const message = {
      ...body.message,
      id: body.message.id ?? keyed ?? crypto.randomUUID(),
    };
    // A parent from elsewhere (another session, another tenant) is refused, never attached: the
    // insert itself checks it (one statement on PostgreSQL) and writes nothing without it. The
    // insert says whether it stored the message, so concurrent POSTs of one id get exactly one
    // 201 (docs/server.md#messages); nothing is read before or after it.
    const result = await deps.manager
      .appendToExisting(id, message, body.parentId, {
        parentMustExist: true,
      })
      .catch((error: unknown) => {
        // The manager reports a missing session first, so this is a missing parent.
        if (isArborError(error) && error.code === "MESSAGE_NOT_FOUND")
          throw messageNotFound(id, body.parentId ?? "");
        throw error;
      });
    if (result.inserted)
      return c.json({ message: toWire(result.message) }, 201);
    if (keyed !== null && !result.matchesStored)
      return declaredAnswer(
        errorResponse(
          c,
          "IDEMPOTENCY_KEY_REUSED",
          "This Idempotency-Key was used for another message: use a new key for a new message",
        ),
      );
    // Under a key a retry answers what the first attempt answered: 201 and the message.
    if (keyed !== null) {
      c.header("Idempotent-Replayed", "true");
      return c.json({ message: toWire(result.message) }, 201);
    }
    if (result.matchesStored)
      return c.json({ message: toWire(result.message) }, 200);
    throw new ArborError(
      "MESSAGE_EXISTS",
      `Message "${message.id}" already exists in session "${id}" with a different body`,
    );
  });

  app.openapi(getMessage, async (c) => {
    const { id, messageId } = c.req.valid("param");
    const session = await openSession(deps, c, id);
    const message = await requireMessage(session, id, messageId);
    return c.json({ message: toWire(message) }, 200);
  });

  app.openapi(updateMessage, async (c) => {
    const { id, messageId } = c.req.valid("param");
    const { message } = c.req.valid("json");
    if (message.id !== undefined && message.id !== messageId) {
      throw new ArborError(
        "INVALID_ARGUMENT",
        `body.message.id "${message.id}" does not match the path's message id "${messageId}"`,
      );
    }
    const session = await openSession(deps, c, id);
    await requireMessage(session, id, messageId);
    await session.updateMessage({
      ...message,
      id: messageId,
    });
    const stored = await requireMessage(session, id, messageId);
    return c.json({ message: toWire(stored) }, 200);
  });

  app.openapi(deleteMessage, async (c) => {
    const { id, messageId } = c.req.valid("param");
    const session = await openSession(deps, c, id);
    await requireMessage(session, id, messageId);
    await session.deleteMessages([messageId]);
    return c.body(null, 204);
  });

  app.openapi(getBranches, async (c) => {
    const { id, messageId } = c.req.valid("param");
    const session = await openSession(deps, c, id);
    await requireMessage(session, id, messageId);
    const children = await session.getBranches(messageId);
    return c.json({ messages: children.map(toWire) }, 200);
  });
}
