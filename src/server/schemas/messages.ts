import { z } from "@hono/zod-openapi";
import { input, MessageSchema, NewMessageSchema } from "./common.js";

const leafId = input().min(1).max(512);

export const CompactionSchema = z
  .object({
    id: z.string(),
    summary: z.string(),
    fromMessageId: z.string(),
    toMessageId: z.string(),
    createdAt: z.string(),
    meta: z
      .object({
        summarizer: z.string().optional(),
        tokensBefore: z.number().optional(),
        tokensAfter: z.number().optional(),
        coveredMessages: z.number().optional(),
        requestKey: z.string().optional().openapi({
          description:
            "Set when the overlay was stored by a `POST …/compact` under an `Idempotency-Key`: a hash of the tenant and the key, never the key itself",
        }),
      })
      .optional(),
  })
  .openapi("Compaction");

export const LeafQuery = z.object({ leafId: leafId.optional() });

export const HistorySchema = z
  .object({ messages: z.array(MessageSchema), leafId: z.string().nullable() })
  .openapi("History");

export const RecentQuery = z.object({
  maxBytes: z.coerce
    .number()
    .int()
    .min(1)
    .max(1 << 30)
    .openapi({ example: 65536 }),
  leafId: leafId.optional(),
});

export const RecentHistorySchema = z
  .object({
    messages: z.array(MessageSchema),
    truncated: z.boolean(),
    totalContentBytes: z.number(),
  })
  .openapi("RecentHistory");

/** One message of the tree, without its content: `preview` is its first 120 text characters. */
export const TreeNodeSchema = z
  .object({
    id: z.string(),
    parentId: z.string().nullable(),
    role: z.string(),
    createdAt: z.string(),
    preview: z.string(),
  })
  .openapi("TreeNode");

export const TreeSchema = z
  .object({
    nodes: z.array(TreeNodeSchema),
    activeLeafId: z.string().nullable(),
    compactions: z.array(CompactionSchema),
  })
  .openapi("Tree");

export const AppendBody = z
  .object({
    message: NewMessageSchema,
    parentId: leafId.nullable().optional().openapi({
      description:
        "Omitted: after the active leaf; `null`: a new root; an id: under that message",
    }),
  })
  .openapi("AppendMessage");

export const MessageEnvelope = z
  .object({ message: MessageSchema })
  .openapi("MessageEnvelope");

export const UpdateBody = z
  .object({ message: NewMessageSchema })
  .openapi("UpdateMessage");

export const MessagesSchema = z
  .object({ messages: z.array(MessageSchema) })
  .openapi("Messages");

export const LeafSchema = z
  .object({ message: MessageSchema.nullable() })
  .openapi("Leaf");

export const SwitchLeafBody = z
  .object({ leafId })
  .openapi("SwitchLeaf", { example: { leafId: "a2" } });

export const LeafIdSchema = z.object({ leafId: z.string() }).openapi("LeafId");
