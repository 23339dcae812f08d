import { z } from "@hono/zod-openapi";
import { input } from "./common.js";
import { CompactionSchema } from "./messages.js";

const messageId = input().min(1).max(512);

export const CompactionsSchema = z
  .object({ compactions: z.array(CompactionSchema) })
  .openapi("Compactions");

export const AddCompactionBody = z
  .object({
    summary: input().min(1).max(1_000_000),
    fromMessageId: messageId,
    toMessageId: messageId,
  })
  .openapi("AddCompaction", {
    example: {
      summary: "The user planned a trip.",
      fromMessageId: "u1",
      toMessageId: "a2",
    },
  });

export const CompactBody = z
  .object({ leafId: messageId.optional() })
  .openapi("Compact");

export const CompactResultSchema = z
  .object({ compaction: CompactionSchema.nullable() })
  .openapi("CompactResult");

export const CompactionParams = z.object({
  id: input()
    .min(1)
    .max(512)
    .openapi({ param: { name: "id", in: "path" } }),
  compactionId: input()
    .min(1)
    .max(512)
    .openapi({ param: { name: "compactionId", in: "path" } }),
});

export const BlockParams = z.object({
  id: input()
    .min(1)
    .max(512)
    .openapi({ param: { name: "id", in: "path" } }),
  label: input()
    .min(1)
    .max(200)
    .openapi({ param: { name: "label", in: "path" }, example: "memory" }),
});

export const BlockSchema = z
  .object({
    label: z.string(),
    description: z.string().optional(),
    content: z.string(),
    tokens: z.number(),
    maxTokens: z.number().optional(),
    writable: z.boolean(),
    isSkill: z.boolean(),
    isSearchable: z.boolean(),
    created: z.literal(true).optional().openapi({
      description:
        "Present for a block created in the session (POST …/blocks), which DELETE …/blocks/{label} removes; absent for a block the application declares",
    }),
  })
  .openapi("Block");

export const BlocksSchema = z
  .object({ blocks: z.array(BlockSchema) })
  .openapi("Blocks");

export const BlockContentBody = z
  .object({ content: input().max(1_000_000) })
  .openapi("BlockContent", {
    example: { content: "The user prefers trains." },
  });

export const CreateBlockBody = z
  .object({
    label: input()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/)
      .openapi({
        description:
          "1 to 64 letters, digits, '-' or '_', starting with a letter or digit",
      }),
    description: input().max(2_000).optional(),
    maxTokens: z.number().int().min(1).max(10_000_000).optional(),
    content: input().max(1_000_000).optional().openapi({
      description: "The first version of the content; omitted leaves it empty",
    }),
  })
  .openapi("CreateBlock", {
    example: {
      label: "preferences",
      description: "What the user likes",
      maxTokens: 500,
      content: "The user prefers trains.",
    },
  });

export const BlockVersionSchema = z
  .object({
    version: z.number().int(),
    content: z.string(),
    previousContent: z.string().nullable(),
    source: z.enum(["api", "tool", "revert", "import"]),
    toolCallId: z.string().optional(),
    at: z.string(),
  })
  .openapi("BlockVersion");

export const BlockHistorySchema = z
  .object({ versions: z.array(BlockVersionSchema) })
  .openapi("BlockHistory");

export const RevertBody = z
  .object({ version: z.number().int().min(1) })
  .openapi("RevertBlock", { example: { version: 1 } });

export const PromptSchema = z
  .object({
    prompt: z.string().nullable().openapi({
      description:
        "The frozen prompt the next turn sends; null while none has been frozen",
    }),
    current: z.string().openapi({
      description: "What the blocks render now (what a refresh would freeze)",
    }),
  })
  .openapi("Prompt");

export const RefreshedPromptSchema = z
  .object({ prompt: z.string() })
  .openapi("RefreshedPrompt");
