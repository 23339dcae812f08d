import { z } from "@hono/zod-openapi";
import { input, queryInt } from "./common.js";

const q = input().trim().min(1).max(1000).openapi({ example: "Lisbon" });

const mode = z.enum(["text", "semantic", "hybrid"]).optional().openapi({
  description:
    'How to match (docs/search.md): "text" (default without embeddings), "semantic" or "hybrid" (default with embeddings)',
});

const match = z.enum(["any", "all"]).optional().openapi({
  description:
    'Text matching (docs/search.md): "any" (default, ranked: messages holding more of the terms first) or "all" (every term must match)',
});

const prefix = z.enum(["last", "all", "none"]).optional().openapi({
  description:
    'Prefix search (docs/search.md#prefix-search): "last" (the last term matches as the start of a word: "budg" finds "budget"), "all" (every term), or "none" (default, whole words)',
  example: "last",
});

const instant = (description: string, example: string) =>
  input().min(1).max(64).optional().openapi({ description, example });

/** The time and context parameters both search routes take (docs/search.md). */
const timeAndContext = {
  since: instant(
    "Only messages created at or after this ISO-8601 date or instant (UTC unless it names a zone)",
    "2023-05-01",
  ),
  until: instant(
    "Only messages created before this ISO-8601 date or instant",
    "2023-06-01",
  ),
  now: instant(
    'The moment relative times in q count from ("yesterday", "last week"); default the time of the request',
    "2023-06-07T10:00:00Z",
  ),
  timeZone: input().min(1).max(64).optional().openapi({
    description:
      'IANA time zone the dates in q are meant in; default "UTC". A date or time named in q ranks the messages of that time first; it does not filter',
    example: "Europe/Lisbon",
  }),
  context: z.coerce.number().int().min(0).max(10).optional().openapi({
    description:
      "Neighbouring turns returned with each hit: up to this many before and after it on its branch",
    example: 1,
  }),
};

export const SessionSearchQuery = z.object({
  q,
  limit: queryInt(100).openapi({ example: 20 }),
  mode,
  match,
  prefix,
  ...timeAndContext,
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
  match,
  prefix,
  ...timeAndContext,
  sessionId: z
    .union([input().min(1).max(512), z.array(input().min(1).max(512)).max(100)])
    .optional()
    .openapi({ description: "Repeatable: only these sessions" }),
});

const ContextTurnSchema = z
  .object({
    id: z.string(),
    role: z.string(),
    createdAt: z.string().optional(),
    text: z.string().openapi({ description: "Cut to 400 characters" }),
  })
  .openapi("ContextTurn");

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
    sessionName: z
      .string()
      .optional()
      .openapi({ description: "The session's name (cross-session search)" }),
    inQueryTime: z.boolean().optional().openapi({
      description: "With a date or time in q: whether the hit lies in it",
    }),
    context: z
      .object({
        before: z.array(ContextTurnSchema),
        after: z.array(ContextTurnSchema),
      })
      .optional()
      .openapi({ description: "With context: the neighbouring turns" }),
  })
  .openapi("SearchResult");

export const SearchResultsSchema = z
  .object({ results: z.array(SearchResultSchema) })
  .openapi("SearchResults");
