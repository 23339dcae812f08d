import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { ArborError } from "../../session/errors/index.js";
import { openSession, type ServerDeps, type ServerEnv } from "../context.js";
import { idempotentRequest, idempotently } from "../idempotency.js";
import { errors, json, jsonBody, SessionParams } from "../schemas/common.js";
import {
  BlockContentBody,
  BlockHistorySchema,
  BlockParams,
  BlockSchema,
  BlocksSchema,
  CreateBlockBody,
  PromptSchema,
  RefreshedPromptSchema,
  RevertBody,
} from "../schemas/context.js";
import { declaredAnswer } from "../responses/declared-answer.js";

const tags = ["Context blocks"];

export const listBlocks = createRoute({
  method: "get",
  path: "/v1/sessions/{id}/blocks",
  tags,
  summary: "The session's context blocks",
  request: { params: SessionParams },
  responses: { 200: json(BlocksSchema, "The blocks"), ...errors(404) },
});

export const createBlock = createRoute({
  method: "post",
  path: "/v1/sessions/{id}/blocks",
  tags,
  summary:
    "Create a writable block in the session, stored with it (its first version when content is given)",
  request: { params: SessionParams, body: jsonBody(CreateBlockBody) },
  responses: {
    201: json(BlockSchema, "The block"),
    ...errors(404, 409, 413, 415, 501),
  },
});

export const getBlock = createRoute({
  method: "get",
  path: "/v1/sessions/{id}/blocks/{label}",
  tags,
  summary: "One context block",
  request: { params: BlockParams },
  responses: { 200: json(BlockSchema, "The block"), ...errors(404) },
});

export const replaceBlock = createRoute({
  method: "put",
  path: "/v1/sessions/{id}/blocks/{label}",
  tags,
  summary:
    "Replace a writable block's content (the frozen prompt is unchanged)",
  request: { params: BlockParams, body: jsonBody(BlockContentBody) },
  responses: {
    200: json(BlockSchema, "The block"),
    ...errors(404, 409, 413, 415),
  },
});

export const deleteBlock = createRoute({
  method: "delete",
  path: "/v1/sessions/{id}/blocks/{label}",
  tags,
  summary:
    "Delete a block created in the session: its definition, content and history (a declared block answers 409)",
  request: { params: BlockParams },
  responses: { 204: { description: "Deleted" }, ...errors(404, 409, 501) },
});

export const blockHistory = createRoute({
  method: "get",
  path: "/v1/sessions/{id}/blocks/{label}/history",
  tags,
  summary: "Every recorded write of a block, oldest first",
  request: { params: BlockParams },
  responses: { 200: json(BlockHistorySchema, "The versions"), ...errors(404) },
});

export const revertBlock = createRoute({
  method: "post",
  path: "/v1/sessions/{id}/blocks/{label}/revert",
  tags,
  summary: "Restore a block to a recorded version",
  request: { params: BlockParams, body: jsonBody(RevertBody) },
  responses: {
    200: json(BlockSchema, "The block"),
    ...errors(404, 409, 413, 415),
  },
});

export const getPrompt = createRoute({
  method: "get",
  path: "/v1/sessions/{id}/prompt",
  tags,
  summary:
    "The frozen system prompt (null if none) and the one the blocks render now; writes nothing",
  request: { params: SessionParams },
  responses: { 200: json(PromptSchema, "The prompts"), ...errors(404) },
});

export const refreshPrompt = createRoute({
  method: "post",
  path: "/v1/sessions/{id}/prompt/refresh",
  tags,
  summary: "Re-render, persist and return the system prompt",
  request: { params: SessionParams },
  responses: {
    200: json(RefreshedPromptSchema, "The new prompt"),
    ...errors(404),
  },
});

/** Context blocks, their history, and the system prompt. */
export function blockRoutes(
  app: OpenAPIHono<ServerEnv>,
  deps: ServerDeps,
): void {
  app.openapi(listBlocks, async (c) => {
    const session = await openSession(deps, c, c.req.valid("param").id);
    return c.json({ blocks: await storedBlocks(session) }, 200);
  });

  app.openapi(createBlock, async (c) => {
    const { id } = c.req.valid("param");
    await openSession(deps, c, id);
    const { label, ...options } = c.req.valid("json");
    // A definition and a version: under a key, one request writes them; a retry answers the
    // block as created instead of BLOCK_EXISTS.
    const idempotent = await idempotentRequest(
      c,
      JSON.stringify({ label, ...options }),
    );
    const response = await idempotently(deps, c, idempotent, async () => ({
      status: 201,
      body: await deps.manager.createContextBlock(id, label, options),
    }));
    return declaredAnswer(response);
  });

  app.openapi(getBlock, async (c) => {
    const { id, label } = c.req.valid("param");
    const session = await openSession(deps, c, id);
    const block = (await storedBlocks(session)).find((b) => b.label === label);
    if (!block) throw blockNotFound(label);
    return c.json(block, 200);
  });

  app.openapi(replaceBlock, async (c) => {
    const { id, label } = c.req.valid("param");
    const session = await openSession(deps, c, id);
    await requireBlock(session, label);
    const body = c.req.valid("json");
    // Each write is a version in the block's history: under a key, one request writes it.
    const idempotent = await idempotentRequest(c, JSON.stringify(body));
    const response = await idempotently(deps, c, idempotent, async () => ({
      status: 200,
      body: await session.replaceContextBlock(label, body.content),
    }));
    return declaredAnswer(response);
  });

  app.openapi(deleteBlock, async (c) => {
    const { id, label } = c.req.valid("param");
    await openSession(deps, c, id);
    // Without a key a repeat answers 404, as every DELETE route; under one it replays the 204.
    const idempotent = await idempotentRequest(c, "");
    const response = await idempotently(deps, c, idempotent, async () => {
      await deps.manager.deleteContextBlock(id, label);
      return { status: 204, body: null };
    });
    return declaredAnswer(response);
  });

  app.openapi(blockHistory, async (c) => {
    const { id, label } = c.req.valid("param");
    const session = await openSession(deps, c, id);
    await requireBlock(session, label);
    return c.json(
      { versions: await session.getContextBlockHistory(label) },
      200,
    );
  });

  app.openapi(revertBlock, async (c) => {
    const { id, label } = c.req.valid("param");
    const session = await openSession(deps, c, id);
    await requireBlock(session, label);
    const body = c.req.valid("json");
    const idempotent = await idempotentRequest(c, JSON.stringify(body));
    const response = await idempotently(deps, c, idempotent, async () => ({
      status: 200,
      body: await session.revertContextBlock(label, body.version),
    }));
    return declaredAnswer(response);
  });

  app.openapi(getPrompt, async (c) => {
    // A read must not freeze: the frozen prompt is what the agent's next turn sends, and a
    // viewer (the studio's Prompt tab) opening the session must not decide it.
    const session = await openSession(deps, c, c.req.valid("param").id);
    const { frozen, current } = await session.readSystemPrompt();
    return c.json({ prompt: frozen, current }, 200);
  });

  app.openapi(refreshPrompt, async (c) => {
    const session = await openSession(deps, c, c.req.valid("param").id);
    return c.json({ prompt: await session.refreshSystemPrompt() }, 200);
  });
}

// --- Internal helpers ---

/**
 * The blocks as stored now. The manager keeps sessions open between requests, and their loaded
 * blocks would otherwise keep showing what was read first, missing writes by other processes.
 */
function storedBlocks(session: Awaited<ReturnType<typeof openSession>>) {
  return session.loadContext({ reload: true });
}

async function requireBlock(
  session: Awaited<ReturnType<typeof openSession>>,
  label: string,
): Promise<void> {
  const labels = (await session.loadContext()).map((block) => block.label);
  if (!labels.includes(label)) throw blockNotFound(label);
}

function blockNotFound(label: string): ArborError {
  return new ArborError(
    "BLOCK_NOT_FOUND",
    `Context block "${label}" not found`,
  );
}
