import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import {
  readSession,
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
    "Search one session: text, semantic or hybrid, over every branch or one; dates in q rank, since/until filter, context adds neighbours (docs/search.md)",
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
    const { q, limit, mode, scope, leafId, ...rest } = c.req.valid("query");
    // Hits show the session is there: only no hits (or an error) costs the access check.
    const results = await readSession(
      deps,
      c,
      c.req.valid("param").id,
      (session) =>
        session.search(q, {
          ...(limit ? { limit } : {}),
          ...(mode ? { mode } : {}),
          ...(scope ? { scope } : {}),
          ...(leafId ? { leafId } : {}),
          ...timeAndContext(rest),
        }),
      (hits) => hits.length === 0,
    );
    return c.json({ results }, 200);
  });

  app.openapi(searchAll, async (c) => {
    const { q, limit, sessionId, mode, ...rest } = c.req.valid("query");
    const tenant = tenantOf(c);
    const sessionIds = sessionId === undefined ? undefined : [sessionId].flat();
    const results = await deps.manager.search(q, {
      ...(limit ? { limit } : {}),
      ...(mode ? { mode } : {}),
      ...timeAndContext(rest),
      ...(sessionIds ? { sessionIds } : {}),
      ...(tenant !== null ? { ownerId: tenant } : {}),
    });
    return c.json({ results }, 200);
  });
}

// --- Internal helpers ---

/** The match, prefix, time and context parameters as search options, absent ones left out. */
function timeAndContext(query: {
  match?: "any" | "all" | undefined;
  prefix?: "last" | "all" | "none" | undefined;
  since?: string | undefined;
  until?: string | undefined;
  now?: string | undefined;
  timeZone?: string | undefined;
  context?: number | undefined;
}) {
  return {
    ...(query.match ? { match: query.match } : {}),
    ...(query.prefix && query.prefix !== "none"
      ? { prefix: query.prefix }
      : {}),
    ...(query.since ? { since: query.since } : {}),
    ...(query.until ? { until: query.until } : {}),
    ...(query.now ? { now: query.now } : {}),
    ...(query.timeZone ? { timeZone: query.timeZone } : {}),
    ...(query.context !== undefined ? { context: query.context } : {}),
  };
}
