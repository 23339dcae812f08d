import type { ToolSet, UIMessage, UIMessageChunk } from "ai";
import {
  ArborError,
  ArborTypeError,
  type BackendStreams,
  type Session,
  type SessionManager,
  type SessionMessage,
} from "../session/index.js";
import { managerSeam } from "../session/manager/session-manager.js";
import { assembleContext } from "../utils/assemble-context.js";
import { loadAi, type AiSdk } from "./_ai.js";
import { branchView, noteRoot, switchToMessage } from "./branches.js";
import { runGeneration } from "./generation.js";
import { errorResponse, json } from "./http.js";
import { readChatRequest, type ChatRequest } from "./request.js";
import { StreamHub } from "./stream-hub.js";
import { localChunks, storedChunks } from "./stream-reader.js";
import { planTurn, type TurnPlan } from "./turn-plan.js";
import type {
  ChatBranchView,
  ChatHandlerOptions,
  ChatScope,
  ChatUIMessageChunk,
} from "./types.js";

const DEFAULT_BASE_PATH = "/api/chat";
const DEFAULT_POLL_MS = 100;
const DEFAULT_STALE_MS = 60_000;
/** How long the stop route waits for the stopped answer to be stored. */
const STOP_WAIT_MS = 10_000;

/** The routes of a chat backed by Arbor, each a `Request` in and a `Response` out. */
export interface ChatHandler {
  /**
   * Routes a request under `basePath` (docs/ai-sdk.md, "Routes"): `POST {base}` (useChat's send),
   * `GET {base}/:id/stream` (resume; 204 when nothing streams), `POST {base}/:id/stop`,
   * `GET {base}/:id` (the active branch with its siblings), `POST {base}/:id/branch` (switch),
   * `POST {base}/chats` (a new chat). Anything else is a 404.
   */
  fetch(request: Request, scope: ChatScope): Promise<Response>;
  /** `POST {base}`: answers a useChat request and streams the answer. */
  send(request: Request, scope: ChatScope): Promise<Response>;
  /** `GET {base}/:id/stream`: the answer being generated, from its first chunk; 204 when none. */
  resume(chatId: string, scope: ChatScope): Promise<Response>;
  /** `POST {base}/:id/stop`: stops the answer being generated, in whatever process. */
  stop(chatId: string, scope: ChatScope): Promise<Response>;
  /** `GET {base}/:id`: `ChatBranchView` of the active branch. */
  messages(chatId: string, scope: ChatScope): Promise<Response>;
  /** `POST {base}/:id/branch` with `{ messageId }`: makes the branch through it active. */
  switchBranch(
    chatId: string,
    messageId: string,
    scope: ChatScope,
  ): Promise<Response>;
  /** Creates a chat of the owner and returns its id (the `id` to give `useChat`). */
  createChat(scope: ChatScope, name?: string): Promise<string>;
  /** The active branch with its siblings, as data. */
  load(chatId: string, scope: ChatScope): Promise<ChatBranchView>;
}

/**
 * Arbor behind the AI SDK's `useChat` (docs/ai-sdk.md): maps the chat `id` to a session of the
 * caller's owner, keeps every branch (regenerate and edit add siblings, nothing is deleted),
 * never trusts the client's copy of the history beyond its new message, stores the answer when
 * it ends (a stopped one too, marked partial), and stores its chunks so a reload resumes it.
 *
 * @example
 * ```ts
 * import { createChatHandler } from "arbor-memory/ai-sdk";
 * import { SessionManager } from "arbor-memory/session";
 * import { openSqlite } from "arbor-memory/sqlite";
 * import { stepCountIs, streamText } from "ai";
 *
 * const chat = createChatHandler({
 *   manager: SessionManager.create(openSqlite("chat.db")),
 *   respond: (ctx) =>
 *     streamText({ model, system: ctx.system, messages: ctx.messages, tools: ctx.tools,
 *       abortSignal: ctx.abortSignal, stopWhen: stepCountIs(5) }),
 * });
 * app.all("/api/chat/*", (c) => chat.fetch(c.req.raw, { ownerId: c.get("userId") }));
 * ```
 */
export function createChatHandler(options: ChatHandlerOptions): ChatHandler {
  assertOptions(options);
  const { manager } = options;
  const base = (options.basePath ?? DEFAULT_BASE_PATH).replace(/\/+$/, "");
  const pollMs = options.pollIntervalMs ?? DEFAULT_POLL_MS;
  const staleAfterMs = options.staleAfterMs ?? DEFAULT_STALE_MS;
  const generateId = options.generateId ?? (() => crypto.randomUUID());
  const hub = new StreamHub();
  const streams = () => managerSeam(manager).streams;

  const open = async (chatId: string, scope: ChatScope): Promise<Session> => {
    assertScope(scope);
    return manager.resume(chatId, scope.ownerId);
  };

  const answer = async (
    ai: AiSdk,
    request: ChatRequest,
    session: Session,
  ): Promise<Response> => {
    const message = await validated(ai, options, request.message);
    const plan = await planTurn(session, request, message, generateId);
    const store = streams();
    const streamId = generateId();
    if (
      store &&
      !(await store.begin(request.chatId, streamId, { staleAfterMs }))
    )
      throw new ArborError(
        "WRITE_CONFLICT",
        `[arbor] [ai-sdk] Chat "${request.chatId}" is still answering; stop it or wait for it`,
      );
    const local = hub.open(request.chatId, streamId);
    try {
      await applyPlan(plan, session, manager, request.chatId);
      const leafId = plan.continued?.id ?? plan.answerParentId!;
      const { system, messages: uiMessages } = await assembleContext(session, {
        leafId,
        ...(options.fallbackSystemPrompt !== undefined
          ? { fallbackSystemPrompt: options.fallbackSystemPrompt }
          : {}),
        ...(options.truncate !== undefined
          ? { truncate: options.truncate }
          : {}),
        ...(options.filters ? { filters: options.filters } : {}),
      });
      // The session's memory tools are AI SDK tools in a structural type of their own (the
      // session entry point does not depend on `ai`'s types).
      const tools: ToolSet = {
        ...((await session.tools()) as ToolSet),
        ...options.tools,
      };
      const modelMessages = await ai.convertToModelMessages(
        uiMessages as UIMessage[],
        { tools, ignoreIncompleteToolCalls: true },
      );
      const result = await options.respond({
        system,
        messages: modelMessages,
        uiMessages,
        tools,
        abortSignal: local.controller.signal,
        session,
        chatId: request.chatId,
        kind: plan.kind,
        body: request.body,
      });
      const running = runGeneration({
        ai,
        session,
        sessionId: request.chatId,
        hub,
        local,
        streams: store,
        result,
        uiMessages,
        assistantId: generateId(),
        answerParentId: plan.answerParentId,
        continued: plan.continued,
        stopPollMs: Math.max(pollMs * 2, 200),
      }).catch((error: unknown) => {
        console.warn(
          `[arbor] [ai-sdk] Storing the answer of chat "${request.chatId}" failed: ${String(error)}`,
        );
      });
      options.waitUntil?.(running);
    } catch (error) {
      hub.close(request.chatId, local);
      await store?.finish(request.chatId, streamId).catch(() => undefined);
      throw error;
    }
    return ai.createUIMessageStreamResponse({
      stream: localChunks(local) as ReadableStream<UIMessageChunk>,
    });
  };

  const handler: ChatHandler = {
    async send(request, scope) {
      try {
        const ai = await loadAi(options.ai);
        const parsed = await readChatRequest(request);
        const session = await open(parsed.chatId, scope);
        return await answer(ai, parsed, session);
      } catch (error) {
        return errorResponse(error);
      }
    },

    async resume(chatId, scope) {
      try {
        await open(chatId, scope);
        const ai = await loadAi(options.ai);
        const local = hub.get(chatId);
        let stream: ReadableStream<ChatUIMessageChunk> | null = null;
        if (local) stream = localChunks(local);
        else {
          const store = streams();
          const read = store ? await store.read(chatId, 0) : null;
          if (store && read?.status === "active")
            stream = storedChunks(store, chatId, read.streamId, {
              pollMs,
              staleAfterMs,
            });
        }
        if (!stream) return new Response(null, { status: 204 });
        return ai.createUIMessageStreamResponse({
          stream: stream as ReadableStream<UIMessageChunk>,
        });
      } catch (error) {
        return errorResponse(error);
      }
    },

    async stop(chatId, scope) {
      try {
        await open(chatId, scope);
        const local = hub.get(chatId);
        local?.controller.abort();
        const store = streams();
        const stored = (await store?.requestStop(chatId)) ?? false;
        // Answers once the stopped answer is stored, so a reload right after shows it.
        if (local) await withTimeout(local.finished, STOP_WAIT_MS);
        else if (store && stored)
          await withTimeout(
            stoppedInStore(store, chatId, pollMs),
            STOP_WAIT_MS,
          );
        return json({ stopped: local !== undefined || stored });
      } catch (error) {
        return errorResponse(error);
      }
    },

    async messages(chatId, scope) {
      try {
        return json(await handler.load(chatId, scope));
      } catch (error) {
        return errorResponse(error);
      }
    },

    async switchBranch(chatId, messageId, scope) {
      try {
        const session = await open(chatId, scope);
        if (typeof messageId !== "string" || messageId === "")
          throw new ArborTypeError(
            "INVALID_ARGUMENT",
            "[arbor] [ai-sdk] Switching a branch needs `messageId`",
          );
        await switchToMessage(session, messageId);
        return json(await branchView(manager, chatId, session));
      } catch (error) {
        return errorResponse(error);
      }
    },

    async createChat(scope, name = "New chat") {
      assertScope(scope);
      const info = await manager.create(name, {
        ownerId: scope.ownerId,
        source: "ai-sdk",
      });
      return info.id;
    },

    async load(chatId, scope) {
      const session = await open(chatId, scope);
      return branchView(manager, chatId, session);
    },

    async fetch(request, scope) {
      const url = new URL(request.url);
      if (!url.pathname.startsWith(base))
        return json({ error: { code: "NOT_FOUND", message: "No route" } }, 404);
      const rest = url.pathname.slice(base.length).split("/").filter(Boolean);
      const method = request.method.toUpperCase();
      const [first, second] = rest.map(decodeURIComponent);
      if (rest.length === 0 && method === "POST")
        return handler.send(request, scope);
      if (rest.length === 1 && first === "chats" && method === "POST") {
        try {
          const body = (await request.json().catch(() => ({}))) as {
            name?: unknown;
          };
          const name = typeof body.name === "string" ? body.name : undefined;
          return json({ id: await handler.createChat(scope, name) }, 201);
        } catch (error) {
          return errorResponse(error);
        }
      }
      if (rest.length === 1 && method === "GET")
        return handler.messages(first!, scope);
      if (rest.length === 2 && second === "stream" && method === "GET")
        return handler.resume(first!, scope);
      if (rest.length === 2 && second === "stop" && method === "POST")
        return handler.stop(first!, scope);
      if (rest.length === 2 && second === "branch" && method === "POST") {
        const body = (await request.json().catch(() => ({}))) as {
          messageId?: unknown;
        };
        return handler.switchBranch(first!, body.messageId as string, scope);
      }
      return json({ error: { code: "NOT_FOUND", message: "No route" } }, 404);
    },
  };
  return handler;
}

// --- Internal helpers ---

/** Writes what the plan adds before the model runs: the user message, or the merged tool results. */
async function applyPlan(
  plan: TurnPlan,
  session: Session,
  manager: SessionManager,
  chatId: string,
): Promise<void> {
  if (plan.append) {
    await session.appendMessage(plan.append.message, plan.append.parentId);
    await noteRoot(manager, chatId, session, plan.append.message.id);
  }
  if (plan.continued) await session.updateMessage(plan.continued);
}

/** What the AI SDK's `validateUIMessages` takes. */
type ValidateOptions = Parameters<AiSdk["validateUIMessages"]>[0];

/** The client's new message, checked by the AI SDK's own `validateUIMessages`. */
async function validated(
  ai: AiSdk,
  options: ChatHandlerOptions,
  message: unknown,
): Promise<SessionMessage | undefined> {
  if (message === undefined) return undefined;
  try {
    const [checked] = await ai.validateUIMessages({
      messages: [message],
      ...(options.metadataSchema
        ? {
            metadataSchema:
              options.metadataSchema as ValidateOptions["metadataSchema"],
          }
        : {}),
      ...(options.dataSchemas
        ? { dataSchemas: options.dataSchemas as ValidateOptions["dataSchemas"] }
        : {}),
      ...(options.tools
        ? {
            tools: validationTools(
              ai,
              options.tools,
              message,
            ) as ValidateOptions["tools"],
          }
        : {}),
    });
    return checked as SessionMessage;
  } catch (error) {
    throw new ArborTypeError(
      "INVALID_MESSAGE",
      `[arbor] [ai-sdk] The new message is not a valid UI message: ${invalidMessageReason(error, message)}`,
      { cause: error },
    );
  }
}

/**
 * One line saying where a message failed validation (`parts[0]: no UI message part has type
 * "bogus"`), from the schema issues behind the AI SDK's error; the full issue list stays on the
 * error's `cause`. A union of every part shape would otherwise print each shape's complaint.
 */
function invalidMessageReason(error: unknown, message: unknown): string {
  const cause: unknown =
    error instanceof Error && error.cause !== undefined ? error.cause : error;
  const issues: unknown =
    typeof cause === "object" && cause !== null
      ? Reflect.get(cause, "issues")
      : undefined;
  const [issue] = Array.isArray(issues) ? (issues as unknown[]) : [];
  if (typeof issue !== "object" || issue === null) {
    const text = error instanceof Error ? error.message : String(error);
    return text.split("\n")[0] ?? text;
  }
  const rawPath: unknown = Reflect.get(issue, "path");
  // The path starts at the array of messages validated, which holds only this one.
  const path = (Array.isArray(rawPath) ? (rawPath as unknown[]) : []).slice(1);
  const where =
    path
      .map((key, index) =>
        typeof key === "number"
          ? `[${key}]`
          : `${index === 0 ? "" : "."}${String(key)}`,
      )
      .join("") || "the message";
  if (Reflect.get(issue, "code") === "invalid_union") {
    let value: unknown = message;
    for (const key of path)
      value =
        typeof value === "object" && value !== null
          ? Reflect.get(value, key as PropertyKey)
          : undefined;
    const type: unknown =
      typeof value === "object" && value !== null
        ? Reflect.get(value, "type")
        : undefined;
    return typeof type === "string"
      ? `${where}: no UI message part has type ${JSON.stringify(type)} and these fields`
      : `${where}: matches none of the shapes it may have`;
  }
  const text: unknown = Reflect.get(issue, "message");
  return `${where}: ${typeof text === "string" ? text : "invalid"}`;
}

/**
 * The app's tools for `validateUIMessages`, plus an open schema for any other tool the message
 * names (the session's memory tools): their parts are checked for shape, not rejected as unknown.
 */
function validationTools(
  ai: AiSdk,
  tools: Record<string, unknown>,
  message: unknown,
): Record<string, unknown> {
  const parts = (message as { parts?: unknown } | null)?.parts;
  const names = Array.isArray(parts)
    ? parts
        .map((part) => (part as { type?: unknown } | null)?.type)
        .filter(
          (type): type is string =>
            typeof type === "string" && type.startsWith("tool-"),
        )
        .map((type) => type.slice("tool-".length))
    : [];
  const open = Object.fromEntries(
    names
      .filter((name) => !Object.hasOwn(tools, name))
      .map((name) => [name, { inputSchema: ai.jsonSchema({}) }]),
  );
  return { ...open, ...tools };
}

/** Resolves when the session's stream is no longer active in the store. */
async function stoppedInStore(
  store: BackendStreams,
  chatId: string,
  pollMs: number,
): Promise<void> {
  for (;;) {
    const read = await store.read(chatId, Number.MAX_SAFE_INTEGER);
    if (read?.status !== "active") return;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

async function withTimeout(work: Promise<void>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    work,
    new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))),
  ]);
  clearTimeout(timer);
}

function assertOptions(options: ChatHandlerOptions): void {
  if (typeof options !== "object" || options === null)
    throw invalid("takes an options object");
  if (typeof options.manager?.resume !== "function")
    throw invalid("needs `manager` (a SessionManager)");
  if (typeof options.respond !== "function")
    throw invalid("needs `respond` (the call to streamText)");
}

function assertScope(scope: ChatScope): void {
  if (
    typeof scope !== "object" ||
    scope === null ||
    typeof scope.ownerId !== "string" ||
    scope.ownerId === ""
  )
    throw invalid("needs the authenticated `ownerId` of every request");
}

function invalid(detail: string): ArborTypeError {
  return new ArborTypeError(
    "INVALID_ARGUMENT",
    `[arbor] [ai-sdk] createChatHandler() ${detail}`,
  );
}
