// A test client over `app.request()`: JSON in and out, and every JSON answer checked against the
// zod schema its route declares (the same schemas the OpenAPI document is generated from).
import type { z } from "@hono/zod-openapi";
import type { OpenAPIHono } from "@hono/zod-openapi";
import * as blocks from "../../../src/server/routes/blocks.js";
import * as compactions from "../../../src/server/routes/compactions.js";
import * as contextWindow from "../../../src/server/routes/context-window.js";
import * as history from "../../../src/server/routes/history.js";
import * as messages from "../../../src/server/routes/messages.js";
import * as search from "../../../src/server/routes/search.js";
import * as sessions from "../../../src/server/routes/sessions.js";
import * as transfer from "../../../src/server/routes/transfer.js";
import * as events from "../../../src/server/events.js";
import type { ServerEnv } from "../../../src/server/context.js";

export interface Answer<T = any> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

export interface CallOptions {
  /** JSON body (sent with `Content-Type: application/json`). */
  json?: unknown;
  /** A raw body, sent as given (text, or bytes such as a zip). */
  raw?: string | Uint8Array;
  headers?: Record<string, string>;
  /** Another key than the client's; `null` for none. */
  key?: string | null;
}

export type Call = (
  method: string,
  path: string,
  options?: CallOptions,
) => Promise<Answer>;

interface RouteLike {
  method: string;
  path: string;
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

/** Every route the app declares, from the route modules. */
export const ROUTES: RouteLike[] = [
  sessions,
  history,
  messages,
  compactions,
  blocks,
  contextWindow,
  search,
  transfer,
  events,
].flatMap((module) =>
  Object.values(module).filter(
    (value): value is RouteLike =>
      typeof value === "object" &&
      value !== null &&
      "method" in value &&
      "path" in value &&
      "responses" in value,
  ),
);

/** A caller of the app with an optional API key. */
export function client(app: OpenAPIHono<ServerEnv>, key?: string): Call {
  return async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    const useKey = options.key === undefined ? key : options.key;
    if (useKey) headers.Authorization = `Bearer ${useKey}`;
    let body: string | Uint8Array | undefined = options.raw;
    // A string body would go out as text/plain, which a server without keys takes only from
    // its own pages (a web form could send it): send files the way API clients do.
    if (body !== undefined)
      headers["Content-Type"] ??= "application/octet-stream";
    if (options.json !== undefined) {
      headers["Content-Type"] ??= "application/json";
      body = JSON.stringify(options.json);
    }
    const response = await app.request(path, { method, headers, body });
    const text = await response.text();
    const answer: Answer = {
      status: response.status,
      body: parseJson(text),
      text,
      headers: response.headers,
    };
    checkAnswer(method, path, answer);
    return answer;
  };
}

/** Throws unless a JSON answer matches its route's declared schema for that status. */
export function checkAnswer(
  method: string,
  path: string,
  answer: Answer,
): void {
  const type = answer.headers.get("content-type") ?? "";
  if (!type.startsWith("application/json")) return;
  const pathname = path.split("?")[0]!;
  const route = ROUTES.find(
    (candidate) =>
      candidate.method === method.toLowerCase() &&
      templateMatches(candidate.path, pathname),
  );
  if (!route) return;
  const declared = route.responses[String(answer.status)];
  if (!declared) {
    throw new Error(
      `${method} ${path} answered ${answer.status}, which its route does not declare: ${answer.text}`,
    );
  }
  const schema = declared.content?.["application/json"]?.schema as
    z.ZodType | undefined;
  if (!schema || typeof schema.safeParse !== "function") return;
  const result = schema.safeParse(answer.body);
  if (!result.success) {
    throw new Error(
      `${method} ${path} (${answer.status}) does not match its schema: ${result.error.message}`,
    );
  }
}

function templateMatches(template: string, path: string): boolean {
  const a = template.split("/");
  const b = path.split("/");
  return (
    a.length === b.length &&
    a.every((part, i) => part.startsWith("{") || part === b[i])
  );
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A user or assistant text message. */
export function text(
  id: string | undefined,
  content: string,
  role: "user" | "assistant" = "user",
) {
  return {
    ...(id !== undefined ? { id } : {}),
    role,
    parts: [{ type: "text", text: content }],
  };
}
