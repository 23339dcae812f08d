import { z } from "@hono/zod-openapi";
import { input, queryInt } from "./common.js";

const q = input().trim().min(1).max(1000).openapi({ example: "Lisbon" });

const mode = z.enum(["text", "semantic", "hybrid"]).optional().openapi({
  description:
    'How to match (docs/search.md): "text" (default without embeddings), "semantic" or "hybrid" (default with embeddings)',
});

export const SessionSearchQuery = z.object({
  q,
  limit: queryInt(100).openapi({ example: 20 }),
  mode,
  scope: z.enum(["branch", "session"]).optional().openapi({
    description:
      'Where to look: "session" (default, every branch) or "branch" (the active path, or the path to leafId)',
  }),
  leafId: input().min(1).max(512).optional().openapi({
    description: 'The leaf whose path scope "branch" searches',
  }),
});

export const SearchQuery = z.object({
  q,
  limit: queryInt(100).openapi({ example: 20 }),
  mode,
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
    // Present on explained results: any mode given, or a server with embeddings.
    kind: z.enum(["message", "summary"]).optional(),
    score: z.number().optional(),
    matched: z.object({ text: z.boolean(), semantic: z.boolean() }).optional(),
    snippet: z
      .string()
      .optional()
      .openapi({ description: "Matched terms wrapped in « and »" }),
    onActiveBranch: z.boolean().optional(),
  })
  .openapi("SearchResult");

export const SearchResultsSchema = z
  .object({ results: z.array(SearchResultSchema) })
  .openapi("SearchResults");
