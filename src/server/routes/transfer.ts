import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import {
  importConversationsWithReport,
  isZip,
  parseChatGptZip,
  parseConversations,
  toArborJsonl,
  toMarkdown,
} from "../../formats/index.js";
import {
  openSession,
  requireInfo,
  requireMessage,
  sessionView,
  tenantOf,
  type ServerDeps,
  type ServerEnv,
} from "../context.js";
import { idempotentRequest, idempotently } from "../idempotency.js";
import { errors, json, SessionParams } from "../schemas/common.js";
import {
  ExportQuery,
  ImportedSchema,
  ImportQuery,
} from "../schemas/transfer.js";
import { declaredAnswer } from "../responses/declared-answer.js";

const tags = ["Import and export"];

export const exportSession = createRoute({
  method: "get",
  path: "/v1/sessions/{id}/export",
  tags,
  summary:
    "Download a session: snapshot JSON, tree JSONL, or a Markdown branch",
  request: { params: SessionParams, query: ExportQuery },
  responses: {
    200: {
      content: {
        "application/json": { schema: z.object({}).loose() },
        "application/x-ndjson": { schema: z.string() },
        "text/markdown": { schema: z.string() },
      },
      description: "The file (with a Content-Disposition file name)",
    },
    ...errors(404),
  },
});

export const importFile = createRoute({
  method: "post",
  path: "/v1/import",
  tags,
  summary: "Import a file of conversations: all of them, or none",
  request: {
    query: ImportQuery,
    body: {
      content: { "*/*": { schema: { type: "string" } } },
      description:
        "The file: snapshot JSON, tree JSONL, ChatGPT conversations.json or the export's zip, OpenAI or UIMessage arrays, Pi, Claude Code or Codex JSONL",
      required: true,
    },
  },
  responses: {
    200: json(ImportedSchema, "Nothing new: every conversation was skipped"),
    201: json(ImportedSchema, "The sessions created and updated"),
    ...errors(413, 422),
  },
});

/** Export of one session, import of a file. */
export function transferRoutes(
  app: OpenAPIHono<ServerEnv>,
  deps: ServerDeps,
): void {
  const { manager } = deps;
  app.openapi(exportSession, async (c) => {
    const { id } = c.req.valid("param");
    const { format, leafId, toolOutput } = c.req.valid("query");
    const info = await requireInfo(deps, c, id);
    const session = await openSession(deps, c, id);
    if (leafId !== undefined) await requireMessage(session, id, leafId);
    const activeLeafId = leafId ?? (await session.getLatestLeaf())?.id ?? null;
    const base = fileBase(info.name, id);
    if (format === "markdown") {
      const messages = activeLeafId
        ? await session.getHistory(activeLeafId)
        : [];
      return download(
        c,
        toMarkdown(info, messages, { toolOutput }),
        `${base}.md`,
        "text/markdown",
      );
    }
    const snapshot = await manager.exportSession(id);
    if (format === "jsonl") {
      const text = toArborJsonl(snapshot, activeLeafId);
      return download(c, text, `${base}.arbor.jsonl`, "application/x-ndjson");
    }
    return download(
      c,
      JSON.stringify(snapshot),
      `${base}.json`,
      "application/json",
    );
  });

  app.openapi(importFile, async (c) => {
    const query = c.req.valid("query");
    const { format, name, fileName, keepIds, lenient } = query;
    const tenant = tenantOf(c);
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    const idempotency = await idempotentRequest(c, bytes);
    // Under a key one request runs; without one the conversations' identity keeps a repeated or
    // concurrent import of the same file from writing them twice (docs/formats.md#re-imports).
    const response = await idempotently(deps, c, idempotency, async () => {
      // A ChatGPT export arrives as downloaded: a zip holding conversations.json.
      const parsed = isZip(bytes)
        ? await parseChatGptZip(bytes, {
            lenient: lenient === "true",
            ...(fileName ? { fileName } : {}),
          })
        : parseConversations(new TextDecoder().decode(bytes), {
            format,
            ...(fileName ? { fileName } : {}),
            lenient: lenient === "true",
          });
      const conversations = parsed.map((conversation) => ({
        ...conversation,
        ...(name ? { title: name } : {}),
        // With auth the file's own owner is dropped: the uploading tenant owns the copy.
        ...(tenant !== null
          ? { snapshot: { ...conversation.snapshot, ownerId: undefined } }
          : {}),
      }));
      const report = await importConversationsWithReport(
        manager,
        conversations,
        {
          // With auth the tenant owns what it imports, under fresh ids.
          ...(tenant !== null ? { ownerId: tenant } : {}),
          keepIds: tenant === null && keepIds === "true",
          existing: query.existing,
          restoreErased: query.restoreErased === "true",
        },
      );
      const sessions = await Promise.all(
        report.sessions.map((info) => sessionView(manager, info)),
      );
      const skipped = parsed.flatMap((conversation, index) =>
        (conversation.skipped ?? []).map((item) => ({
          conversation: index,
          ...item,
        })),
      );
      const warnings = parsed.flatMap((conversation, index) =>
        (conversation.warnings ?? []).map((item) => ({
          conversation: index,
          ...item,
        })),
      );
      const body = {
        sessions,
        created: report.created.map((info) => info.id),
        updated: report.updated.map((entry) => ({
          sessionId: entry.session.id,
          messagesAdded: entry.messagesAdded,
        })),
        skippedConversations: report.skipped,
        skipped,
        warnings,
      };
      return { status: report.created.length > 0 ? 201 : 200, body };
    });
    return declaredAnswer(response);
  });
}

// --- Internal helpers ---

/** The file as an attachment, one of the route's declared answers. */
function download(
  c: Context,
  body: string,
  fileName: string,
  type: string,
): never {
  c.header("Content-Type", `${type}; charset=utf-8`);
  c.header("Content-Disposition", `attachment; filename="${fileName}"`);
  return declaredAnswer(c.body(body, 200));
}

/** A file name from the session name: ASCII letters, digits and dashes, else the id. */
function fileBase(name: string, id: string): string {
  const slug = name
    .normalize("NFKD")
    .replace(/[^A-Za-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60);
  return slug || id.replace(/[^A-Za-z0-9-]/g, "").slice(0, 60) || "session";
}
