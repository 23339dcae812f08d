import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import {
  openSession,
  tenantOf,
  type ServerDeps,
  type ServerEnv,
} from "../context.js";
import { errors, json, SessionParams } from "../schemas/common.js";
import {
  SearchQuery,
  SearchResultsSchema,
  SessionSearchQuery,
} from "../schemas/search.js";

const tags = ["Search"];

export const searchSession = createRoute({
  method: "get",
  path: "/v1/sessions/{id}/search",
  tags,
  summary:
    "Search one session: text, semantic or hybrid, over every branch or one (docs/search.md)",
  request: { params: SessionParams, query: SessionSearchQuery },
  responses: {
    200: json(SearchResultsSchema, "The hits"),
    ...errors(404, 501),
  },
});

export const searchAll = createRoute({
  method: "get",
  path: "/v1/search",
  tags,
  summary:
    "Search across sessions (the tenant's only, with auth): text, semantic or hybrid",
  request: { query: SearchQuery },
  responses: {
    200: json(SearchResultsSchema, "The hits, each with its sessionId"),
    ...errors(501),
  },
});

/** Search in one session and across sessions. */
export function searchRoutes(
  app: OpenAPIHono<ServerEnv>,
  deps: ServerDeps,
): void {
  app.openapi(searchSession, async (c) => {
    const { q, limit, mode, scope, leafId } = c.req.valid("query");
    const session = await openSession(deps, c, c.req.valid("param").id);
    const results = await session.search(q, {
      ...(limit ? { limit } : {}),
      ...(mode ? { mode } : {}),
      ...(scope ? { scope } : {}),
      ...(leafId ? { leafId } : {}),
    });
    return c.json({ results }, 200);
  });

  app.openapi(searchAll, async (c) => {
    const { q, limit, sessionId, mode } = c.req.valid("query");
    const tenant = tenantOf(c);
    const sessionIds = sessionId === undefined ? undefined : [sessionId].flat();
    const results = await deps.manager.search(q, {
      ...(limit ? { limit } : {}),
      ...(mode ? { mode } : {}),
      ...(sessionIds ? { sessionIds } : {}),
      ...(tenant !== null ? { ownerId: tenant } : {}),
    });
    return c.json({ results }, 200);
  });
}
