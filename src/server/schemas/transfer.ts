import { z } from "@hono/zod-openapi";
import { input } from "./common.js";
import { SessionViewSchema } from "./sessions.js";

export const ExportQuery = z.object({
  format: z.enum(["snapshot", "jsonl", "markdown"]).default("snapshot"),
  leafId: input().min(1).max(512).optional().openapi({
    description:
      "jsonl: the active leaf to record; markdown: the branch to write",
  }),
  toolOutput: z.enum(["fold", "full"]).default("fold").openapi({
    description:
      "markdown: `fold` writes each tool call on one line, cut to 200 characters; `full` the whole input and output",
  }),
});

export const ImportQuery = z.object({
  format: z
    .enum([
      "auto",
      "snapshot",
      "arbor-jsonl",
      "chatgpt",
      "openai",
      "ui-messages",
      "pi",
      "claude-code",
      "codex",
    ])
    .default("auto"),
  name: input().trim().min(1).max(500).optional().openapi({
    description:
      "The name of the imported session(s), instead of the file's titles",
  }),
  fileName: input().min(1).max(500).optional().openapi({
    description: "The file's name: a hint for format detection",
  }),
  lenient: z.enum(["true", "false"]).optional().openapi({
    description:
      "Import a trimmed file: entries whose parent is missing go under the root, with a warning",
  }),
  existing: z.enum(["skip", "replace", "update"]).default("update").openapi({
    description:
      "A conversation imported before (same source, same owner): update it with the messages it lacks (default: merged by message id, skipped when nothing is new), skip it, or replace its session",
  }),
  restoreErased: z.enum(["true", "false"]).optional().openapi({
    description:
      "Import conversations whose earlier session was erased (default: skipped)",
  }),
  keepIds: z.enum(["true", "false"]).optional().openapi({
    description:
      "Keep the file's session ids (ignored with auth: always fresh)",
  }),
});

export const SkippedSchema = z
  .object({
    conversation: z.number().int().openapi({
      description: "The index of the conversation in the file",
    }),
    where: z.string(),
    what: z.string(),
    reason: z.string(),
  })
  .openapi("SkippedContent");

export const ImportWarningSchema = z
  .object({
    conversation: z.number().int(),
    where: z.string(),
    problem: z.string(),
  })
  .openapi("ImportWarning");

export const ImportedSchema = z
  .object({
    sessions: z.array(SessionViewSchema),
    skipped: z.array(SkippedSchema).openapi({
      description:
        "What the file holds that the import left out, and why (docs/formats.md)",
    }),
    created: z.array(z.string()).openapi({
      description: "The ids of the sessions created",
    }),
    updated: z
      .array(z.object({ sessionId: z.string(), messagesAdded: z.number() }))
      .openapi({
        description:
          "Sessions replaced (`existing=replace`) or brought up to date (`existing=update`)",
      }),
    skippedConversations: z
      .array(
        z.object({
          title: z.string(),
          reason: z.enum(["exists", "erased"]),
          sessionId: z.string().nullable(),
        }),
      )
      .openapi({
        description:
          "Conversations not imported: imported before (`exists`, with its session) or erased",
      }),
    warnings: z.array(ImportWarningSchema).openapi({
      description: "What `lenient=true` repaired: entries attached to the root",
    }),
  })
  .openapi("Imported");
