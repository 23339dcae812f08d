import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import {
  openSession,
  requireMessage,
  type ServerDeps,
  type ServerEnv,
} from "../context.js";
import { errorResponse } from "../errors.js";
import { errors, json, jsonBody, SessionParams } from "../schemas/common.js";
import {
  AddCompactionBody,
  CompactBody,
  CompactionParams,
  CompactionsSchema,
  CompactResultSchema,
} from "../schemas/context.js";
import { CompactionSchema } from "../schemas/messages.js";

const tags = ["Compaction"];

export const listCompactions = createRoute({
  method: "get",
  path: "/v1/sessions/{id}/compactions",
  tags,
  summary:
    "Every overlay of the session, superseded ones included, oldest first",
  request: { params: SessionParams },
  responses: { 200: json(CompactionsSchema, "The overlays"), ...errors(404) },
});

export const addCompaction = createRoute({
  method: "post",
  path: "/v1/sessions/{id}/compactions",
  tags,
  summary:
    "Store an overlay that shows `summary` in place of a range at read time",
  request: { params: SessionParams, body: jsonBody(AddCompactionBody) },
  responses: {
    201: json(CompactionSchema, "The stored overlay"),
    ...errors(404, 413, 415),
  },
});

export const compact = createRoute({
  method: "post",
  path: "/v1/sessions/{id}/compact",
  tags,
  summary: "Summarize older messages with the manager's compaction function",
  request: {
    params: SessionParams,
    body: { content: { "application/json": { schema: CompactBody } } },
  },
  responses: {
    200: json(
      CompactResultSchema,
      "The stored overlay, or null when there was nothing to compact",
    ),
    ...errors(404, 409, 413, 415),
  },
});

export const removeCompaction = createRoute({
  method: "delete",
  path: "/v1/sessions/{id}/compactions/{compactionId}",
  tags,
  summary: "Delete an overlay; what it covered reappears",
  request: { params: CompactionParams },
  responses: { 204: { description: "Deleted" }, ...errors(404) },
});

/** Compaction overlays: list, add, compact now, remove. */
export function compactionRoutes(
  app: OpenAPIHono<ServerEnv>,
  deps: ServerDeps,
): void {
  app.openapi(listCompactions, async (c) => {
    const session = await openSession(deps, c, c.req.valid("param").id);
    return c.json({ compactions: await session.getCompactions() }, 200);
  });

  app.openapi(addCompaction, async (c) => {
    const { id } = c.req.valid("param");
    const { summary, fromMessageId, toMessageId } = c.req.valid("json");
    const session = await openSession(deps, c, id);
    await requireMessage(session, id, fromMessageId);
    await requireMessage(session, id, toMessageId);
    const stored = await session.addCompaction(
      summary,
      fromMessageId,
      toMessageId,
    );
    return c.json(stored, 201);
  });

  app.openapi(compact, async (c) => {
    const { id } = c.req.valid("param");
    const { leafId } = c.req.valid("json");
    const session = await openSession(deps, c, id);
    if (leafId !== undefined) await requireMessage(session, id, leafId);
    const result = await session.compact(leafId);
    if (!result) return c.json({ compaction: null }, 200);
    const stored = (await session.getCompactions()).findLast(
      (overlay) =>
        overlay.fromMessageId === result.fromMessageId &&
        overlay.toMessageId === result.toMessageId,
    );
    return c.json({ compaction: stored ?? null }, 200);
  });

  app.openapi(removeCompaction, async (c) => {
    const { id, compactionId } = c.req.valid("param");
    const session = await openSession(deps, c, id);
    if (!(await session.removeCompaction(compactionId))) {
      return errorResponse(
        c,
        "NOT_FOUND",
        `Compaction "${compactionId}" not found in session "${id}"`,
      );
    }
    return c.body(null, 204);
  });
}
