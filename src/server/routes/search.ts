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
  summary: "Full-text search in one session: every term must match",
  request: { params: SessionParams, query: SessionSearchQuery },
  responses: { 200: json(SearchResultsSchema, "The hits"), ...errors(404) },
});

export const searchAll = createRoute({
  method: "get",
  path: "/v1/search",
  tags,
  summary: "Full-text search across sessions (the tenant's only, with auth)",
  request: { query: SearchQuery },
  responses: {
    200: json(SearchResultsSchema, "The hits, each with its sessionId"),
    ...errors(),
  },
});

/** Search in one session and across sessions. */
export function searchRoutes(
  app: OpenAPIHono<ServerEnv>,
  deps: ServerDeps,
): void {
  app.openapi(searchSession, async (c) => {
    const { q, limit } = c.req.valid("query");
    const session = await openSession(deps, c, c.req.valid("param").id);
    const results = await session.search(q, limit ? { limit } : {});
    return c.json({ results }, 200);
  });

  app.openapi(searchAll, async (c) => {
    const { q, limit, sessionId } = c.req.valid("query");
    const tenant = tenantOf(c);
    const sessionIds = sessionId === undefined ? undefined : [sessionId].flat();
    const results = await deps.manager.search(q, {
      ...(limit ? { limit } : {}),
      ...(sessionIds ? { sessionIds } : {}),
      ...(tenant !== null ? { ownerId: tenant } : {}),
    });
    return c.json({ results }, 200);
  });
}
