import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { SessionSnapshot } from "../../session/contracts/session-info.js";
import { sessionSeam, type Session } from "../../session/facade/session.js";
import {
  openSession,
  readSession,
  requireMessage,
  tenantOf,
  toWire,
  type ServerDeps,
  type ServerEnv,
} from "../context.js";
import { ReadGate } from "../responses/read-gate.js";
import {
  HISTORY_WINDOW,
  streamedHistory,
} from "../responses/streamed-history.js";
import { errors, json, jsonBody, SessionParams } from "../schemas/common.js";
import {
  HistorySchema,
  LeafIdSchema,
  LeafQuery,
  LeafSchema,
  RecentHistorySchema,
  RecentQuery,
  SwitchLeafBody,
  TreeSchema,
} from "../schemas/messages.js";
import { declaredAnswer } from "../responses/declared-answer.js";

const tags = ["History"];
/**
 * Windows of streamed histories worked on at once, per app (read, serialized and written, each
 * given its turn on a later turn of the event loop): few, so a new request never waits behind
 * many of them for a database connection or for the event loop.
 */
const STREAMED_READS_AT_ONCE = 2;
/** Characters of text a tree node previews. */
const PREVIEW_LENGTH = 120;

export const getHistory = createRoute({
  method: "get",
  path: "/v1/sessions/{id}/history",
  tags,
  summary:
    "The path root → leaf (the active leaf by default), overlays applied",
  request: { params: SessionParams, query: LeafQuery },
  responses: { 200: json(HistorySchema, "The history"), ...errors(404) },
});

export const getRecentHistory = createRoute({
  method: "get",
  path: "/v1/sessions/{id}/history/recent",
  tags,
  summary: "The end of the history that fits in `maxBytes`",
  request: { params: SessionParams, query: RecentQuery },
  responses: {
    200: json(RecentHistorySchema, "The recent history"),
    ...errors(404),
  },
});

export const getTree = createRoute({
  method: "get",
  path: "/v1/sessions/{id}/tree",
  tags,
  summary: "Every message of every branch, without content, and the overlays",
  request: { params: SessionParams },
  responses: { 200: json(TreeSchema, "The tree"), ...errors(404) },
});

export const getLeaf = createRoute({
  method: "get",
  path: "/v1/sessions/{id}/leaf",
  tags,
  summary: "The active leaf",
  request: { params: SessionParams },
  responses: { 200: json(LeafSchema, "The active leaf"), ...errors(404) },
});

export const switchLeaf = createRoute({
  method: "put",
  path: "/v1/sessions/{id}/leaf",
  tags,
  summary: "Switch the active branch to the one ending at `leafId`",
  request: { params: SessionParams, body: jsonBody(SwitchLeafBody) },
  responses: {
    200: json(LeafIdSchema, "The new active leaf"),
    ...errors(404, 413, 415),
  },
});

/** Reads of the tree: history, recent history, the tree, the active leaf. */
export function historyRoutes(
  app: OpenAPIHono<ServerEnv>,
  deps: ServerDeps,
): void {
  const streamedReads = new ReadGate(STREAMED_READS_AT_ONCE);
  app.openapi(getHistory, async (c) => {
    const { id } = c.req.valid("param");
    const given = c.req.valid("query").leafId;
    // A history known large streams at once: trying it whole first would read its path twice
    // (the sizes of the path, then its ids for the windows), and hundreds of readers arriving
    // together each paid both reads before any window. A history that became small since (its
    // leaf moved) streams as one window and is known small again.
    if (given === undefined && deps.largeAnswers?.has(id) !== true) {
      // A history of one window (the usual one) with its leaf in one read (one statement on
      // PostgreSQL), answered whole; `null` for a longer one, which streams below.
      const small = await readSession(
        deps,
        c,
        id,
        (session) => sessionSeam(session).activeHistoryWithin(HISTORY_WINDOW),
        (answer) => answer !== null && answer.messages.length === 0,
      );
      if (small !== null) {
        deps.largeAnswers?.note(id, false);
        return c.json(
          { messages: small.messages.map(toWire), leafId: small.leafId },
          200,
        );
      }
      // Longer than a window: later requests take the large-answer lane from now on, not only
      // once this one has read its first window.
      deps.largeAnswers?.note(id, true);
    }
    // The leaf first, then its path: the first window read here, before the status (a storage
    // fault still answers 503), the rest streamed window by window as the client reads
    // (docs/server.md#large-answers). A path of a fixed leaf does not change while others
    // append, so the answer is one consistent path however long the client takes.
    const session =
      given !== undefined || tenantOf(c) !== null
        ? await openSession(deps, c, id)
        : deps.manager.getSession(id);
    const leafId =
      given === undefined
        ? ((await session.getLatestLeaf())?.id ?? null)
        : (await requireMessage(session, id, given)).id;
    if (leafId === null) {
      // No message: an unknown session (or another tenant's) answers 404, a new one its empty path.
      if (given === undefined && tenantOf(c) === null)
        await openSession(deps, c, id);
      return c.json({ messages: [], leafId }, 200);
    }
    return declaredAnswer(
      await streamedHistory(session, leafId, streamedReads, {
        signal: c.req.raw.signal,
        releaseTurn: c.get("releaseTurn"),
        // Of the active path only: whether later requests take the large-answer lane.
        ...(given === undefined && deps.largeAnswers
          ? {
              onFirstWindow: (large: boolean) =>
                deps.largeAnswers!.note(id, large),
            }
          : {}),
      }),
    );
  });

  app.openapi(getRecentHistory, async (c) => {
    const { id } = c.req.valid("param");
    const { maxBytes, leafId } = c.req.valid("query");
    const recent =
      leafId === undefined
        ? await readSession(
            deps,
            c,
            id,
            (session) => session.getRecentHistory(maxBytes, 1),
            noMessages,
          )
        : await recentOf(await openSession(deps, c, id), id, maxBytes, leafId);
    return c.json({ ...recent, messages: recent.messages.map(toWire) }, 200);
  });

  app.openapi(getTree, async (c) => {
    const session = await openSession(deps, c, c.req.valid("param").id);
    const snapshot = await session.exportSnapshot();
    const activeLeafId = (await session.getLatestLeaf())?.id ?? null;
    return c.json(
      {
        nodes: treeNodes(snapshot),
        activeLeafId,
        compactions: snapshot.compactions,
      },
      200,
    );
  });

  app.openapi(getLeaf, async (c) => {
    const session = await openSession(deps, c, c.req.valid("param").id);
    const leaf = await session.getLatestLeaf();
    return c.json({ message: leaf ? toWire(leaf) : null }, 200);
  });

  app.openapi(switchLeaf, async (c) => {
    const { id } = c.req.valid("param");
    const { leafId } = c.req.valid("json");
    const session = await openSession(deps, c, id);
    await requireMessage(session, id, leafId);
    await session.switchBranch(leafId);
    return c.json({ leafId }, 200);
  });
}

// --- Internal helpers ---

const noMessages = (answer: { messages: readonly unknown[] }) =>
  answer.messages.length === 0;

/** The recent history up to the given leaf, which must exist. */
async function recentOf(
  session: Session,
  sessionId: string,
  maxBytes: number,
  leafId: string,
) {
  await requireMessage(session, sessionId, leafId);
  return session.getRecentHistory(maxBytes, 1, leafId);
}

function treeNodes(snapshot: SessionSnapshot) {
  return snapshot.messages.map(({ message, parentId, createdAt }) => ({
    id: message.id,
    parentId,
    role: message.role,
    createdAt,
    preview: previewOf(message.parts),
  }));
}

function previewOf(parts: ReadonlyArray<{ type: string; text?: unknown }>) {
  const text = parts
    .filter((part) => part.type === "text" && typeof part.text === "string")
    .map((part) => part.text as string)
    .join(" ");
  return text.slice(0, PREVIEW_LENGTH);
}
