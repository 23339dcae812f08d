import { z } from "@hono/zod-openapi";
import { input, queryInt } from "./common.js";

const name = input().trim().min(1).max(500);
const metadata = z.record(input().max(200), input().max(10_000));

/** `SessionInfo` plus owner, metadata and the number of stored messages in every branch. */
export const SessionViewSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    parent_session_id: z.string().nullable(),
    model: z.string().nullable(),
    source: z.string().nullable(),
    input_tokens: z.number(),
    output_tokens: z.number(),
    estimated_cost: z.number(),
    end_reason: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    ownerId: z.string().nullable(),
    metadata: z.record(z.string(), z.string()),
    messageCount: z.number().int(),
  })
  .openapi("SessionView");

export const ListSessionsQuery = z.object({
  limit: queryInt(100).openapi({ example: 20 }),
  cursor: input().min(1).max(2000).optional(),
  owner: input().min(1).max(512).optional(),
  parent: input().min(1).max(512).optional().openapi({
    description:
      "By the session that started them (`parent_session_id`): a session id lists the sessions it started; `none` the top level, sessions without a parent or whose parent is not listed (erased, or another owner's)",
    example: "none",
  }),
});

/** A row of the list: the session and how many sessions it started. */
export const SessionListItemSchema = SessionViewSchema.extend({
  childCount: z.number().int().openapi({
    description:
      "How many sessions name it as their parent (forks, subagent runs, compact-and-split), listed with `parent=<id>`",
  }),
}).openapi("SessionListItem");

export const SessionPageSchema = z
  .object({
    sessions: z.array(SessionListItemSchema),
    nextCursor: z.string().nullable(),
  })
  .openapi("SessionPage");

export const CreateSessionBody = z
  .object({
    name,
    ownerId: input().min(1).max(512).optional(),
    metadata: metadata.optional(),
    model: input().max(500).optional(),
    source: input().max(500).optional(),
  })
  .openapi("CreateSession", { example: { name: "Trip planning" } });

export const RenameSessionBody = z
  .object({ name })
  .openapi("RenameSession", { example: { name: "Trip to Lisbon" } });

export const ForkBody = z
  .object({
    messageId: input().min(1).max(512),
    name: name.optional(),
  })
  .openapi("Fork", { example: { messageId: "a1", name: "Other idea" } });
