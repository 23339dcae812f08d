import { z } from "@hono/zod-openapi";
import { input, queryInt } from "./common.js";

const q = input().trim().min(1).max(1000).openapi({ example: "Lisbon" });

export const SessionSearchQuery = z.object({
  q,
  limit: queryInt(100).openapi({ example: 20 }),
});

export const SearchQuery = z.object({
  q,
  limit: queryInt(100).openapi({ example: 20 }),
  sessionId: z
    .union([input().min(1).max(512), z.array(input().min(1).max(512)).max(100)])
    .optional()
    .openapi({ description: "Repeatable: only these sessions" }),
});

export const SearchResultSchema = z
  .object({
    id: z.string(),
    role: z.string(),
    content: z.string(),
    createdAt: z.string().optional(),
    sessionId: z.string().optional(),
  })
  .openapi("SearchResult");

export const SearchResultsSchema = z
  .object({ results: z.array(SearchResultSchema) })
  .openapi("SearchResults");
