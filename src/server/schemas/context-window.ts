import { z } from "@hono/zod-openapi";
import { input, MessageSchema } from "./common.js";

/** A count of characters or messages from a query string, 0 allowed. */
const count = (max: number) =>
  z.coerce.number().int().min(0).max(max).optional();

export const ContextWindowQuery = z.object({
  leafId: input().min(1).max(512).optional().openapi({
    description: "Read the path to this message (default: the active leaf)",
  }),
  truncate: z.enum(["true", "false"]).optional().openapi({
    description:
      'Read-time truncation of older messages: "true" (default) or "false" to send them whole',
  }),
  keepRecent: count(100_000).openapi({
    description: "Messages at the end left untouched by truncation (default 4)",
  }),
  maxToolOutputChars: count(10_000_000).openapi({
    description:
      "Budget of each older tool output, in characters of JSON (default 500)",
  }),
  maxTextChars: count(10_000_000).openapi({
    description: "Longest older text part kept whole (default 10000)",
  }),
});

const BlockPartSchema = z
  .object({
    label: z.string(),
    description: z.string().optional(),
    writable: z.boolean(),
    rendered: z.boolean().openapi({
      description:
        "Whether the block renders into the prompt (an empty read-only block does not)",
    }),
    text: z.string().openapi({
      description: "The block's section of the prompt as the blocks render now",
    }),
    tokens: z.number().int(),
    maxTokens: z.number().optional(),
    contentTokens: z.number().int().openapi({
      description:
        "The content's tokens as `maxTokens` limits them (the block's own count)",
    }),
  })
  .openapi("ContextBlockPart");

const MessagePartSchema = z
  .object({
    message: MessageSchema,
    tokens: z.number().int(),
    truncated: z.boolean().openapi({
      description:
        "Shortened by read-time truncation (the stored message is whole)",
    }),
  })
  .openapi("ContextMessage");

const ToolPartSchema = z
  .object({
    name: z.string(),
    description: z.string(),
    inputSchema: z.record(z.string(), z.unknown()),
    tokens: z.number().int(),
  })
  .openapi("ContextTool");

export const ContextWindowSchema = z
  .object({
    leafId: z.string().nullable(),
    counter: z.enum(["heuristic", "multilingual"]).openapi({
      description: "The store's token estimate every count here uses",
    }),
    truncation: z
      .object({
        keepRecent: z.number().int(),
        maxToolOutputChars: z.number().int(),
        maxTextChars: z.number().int(),
      })
      .nullable()
      .openapi({ description: "The truncation applied; null when off" }),
    system: z.object({
      text: z.string(),
      source: z.enum(["frozen", "current"]).openapi({
        description:
          '"frozen": the prompt the next turn sends was frozen earlier; "current": none is frozen, the blocks render it now',
      }),
      tokens: z.number().int(),
      blocks: z.array(BlockPartSchema),
    }),
    messages: z.array(MessagePartSchema),
    tools: z.array(ToolPartSchema),
    totals: z.object({
      system: z.number().int(),
      messages: z.number().int(),
      tools: z.number().int(),
      all: z.number().int(),
    }),
  })
  .openapi("ContextWindow");
