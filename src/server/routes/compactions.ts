import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import {
  openSession,
  requireMessage,
  type ServerDeps,
  type ServerEnv,
} from "../context.js";
import { idempotentRequest, idempotently } from "../idempotency.js";
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
import type { CompactResult } from "../../session/contracts/types.js";
import { declaredAnswer } from "../responses/declared-answer.js";

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
    ...errors(404, 413, 415, 422),
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
    ...errors(404, 409, 413, 415, 422),
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
    const body = c.req.valid("json");
    const { summary, fromMessageId, toMessageId } = body;
    const session = await openSession(deps, c, id);
    const idempotent = await idempotentRequest(c, JSON.stringify(body));
    const response = await idempotently(deps, c, idempotent, async () => {
      await requireMessage(session, id, fromMessageId);
      await requireMessage(session, id, toMessageId);
      // Under a key, an overlay that is this one already (an earlier attempt committed, its
      // answer was not stored) is answered instead of being added twice.
      const earlier = idempotent
        ? (await session.getCompactions()).find(
            (overlay) =>
              overlay.summary === summary &&
              overlay.fromMessageId === fromMessageId &&
              overlay.toMessageId === toMessageId,
          )
        : undefined;
      return {
        status: 201,
        body:
          earlier ??
          (await session.addCompaction(summary, fromMessageId, toMessageId)),
        replayed: earlier !== undefined,
      };
    });
    return declaredAnswer(response);
  });

  app.openapi(compact, async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const { leafId } = body;
    const session = await openSession(deps, c, id);
    const idempotent = await idempotentRequest(c, JSON.stringify(body ?? {}));
    if (leafId !== undefined) await requireMessage(session, id, leafId);
    // Under a key, the overlay is stamped with it (`requestKey`): a retry that takes over a
    // failed or dead attempt finds it instead of calling the model again (docs/server.md).
    const requestKey = idempotent?.key;
    const storedOverlay = async (range?: CompactResult) =>
      (await session.getCompactions()).findLast((overlay) =>
        requestKey !== undefined
          ? overlay.meta?.requestKey === requestKey
          : overlay.fromMessageId === range?.fromMessageId &&
            overlay.toMessageId === range?.toMessageId,
      );
    const response = await idempotently(
      deps,
      c,
      idempotent,
      async () => {
        const result = await session.compact(
          leafId,
          requestKey === undefined ? undefined : { requestKey },
        );
        return {
          status: 200,
          body: {
            compaction: (result && (await storedOverlay(result))) ?? null,
          },
        };
      },
      {
        committed: async () => {
          const overlay = await storedOverlay();
          return overlay
            ? { status: 200, body: { compaction: overlay } }
            : null;
        },
      },
    );
    return declaredAnswer(response);
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
