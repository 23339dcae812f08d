import { z } from "@hono/zod-openapi";

/** `{ error: { code, message } }`, the shape of every error answer. */
export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: "SESSION_NOT_FOUND" }),
      message: z.string(),
    }),
  })
  .openapi("Error");

/** A request string. PostgreSQL text cannot hold NUL, so no field may carry one. */
export const input = () =>
  z.string().regex(/^[^\u0000]*$/, "must not contain NUL (\\u0000) characters");

/** A path segment id: non-empty, bounded. */
export const idString = (name: string) =>
  input()
    .min(1)
    .max(512)
    .openapi({ param: { name, in: "path" }, example: `${name}-1` });

export const SessionParams = z.object({ id: idString("id") });
export const MessageParams = z.object({
  id: idString("id"),
  messageId: idString("messageId"),
});

/** One part of a message: `type` plus whatever the part kind carries. */
export const PartSchema = z
  .looseObject({ type: input().min(1) })
  .openapi("MessagePart", { example: { type: "text", text: "Hello" } });

/** A stored message (an AI SDK `UIMessage` is one). */
export const MessageSchema = z
  .looseObject({
    id: z.string(),
    role: z.string(),
    parts: z.array(PartSchema),
  })
  .openapi("Message");

/** A message to write: the id is optional (a random one is given). */
export const NewMessageSchema = z
  .looseObject({
    id: input().min(1).max(512).optional(),
    role: z.enum(["system", "user", "assistant"]),
    parts: z.array(PartSchema),
  })
  .openapi("NewMessage", {
    example: { role: "user", parts: [{ type: "text", text: "Hello" }] },
  });

/** A positive integer from a query string. */
export const queryInt = (max: number) =>
  z.coerce.number().int().min(1).max(max).optional();

/** A JSON answer in an OpenAPI response map. */
export function json<T extends z.ZodType>(schema: T, description: string) {
  return { content: { "application/json": { schema } }, description };
}

/** A required JSON body. */
export function jsonBody<T extends z.ZodType>(schema: T) {
  return { content: { "application/json": { schema } }, required: true };
}

const ERROR_DESCRIPTIONS = {
  400: "Invalid request (INVALID_REQUEST, INVALID_JSON, or an Arbor validation code)",
  401: "Missing or invalid API key (UNAUTHORIZED)",
  403: "Refused by a server without API keys: a foreign Host (FORBIDDEN_HOST) or a write from another origin (FORBIDDEN_ORIGIN)",
  404: "Not found (SESSION_NOT_FOUND for a missing or foreign session, MESSAGE_NOT_FOUND, …)",
  409: "Conflicts with the stored state, or a request with this Idempotency-Key still runs (IDEMPOTENCY_IN_PROGRESS)",
  413: "The body is over the limit (PAYLOAD_TOO_LARGE)",
  415: "The body is not JSON (UNSUPPORTED_MEDIA_TYPE)",
  422: "The Idempotency-Key was used for another request (IDEMPOTENCY_KEY_REUSED)",
  500: "An unexpected error (INTERNAL) or a storage failure that is not an outage (STORAGE_ERROR); details go to the server's log only",
  501: "Not available on this server (NOT_SUPPORTED, e.g. semantic search without embeddings)",
  503: "Temporarily unavailable, with Retry-After: the storage is down (STORAGE_UNAVAILABLE), too many requests (OVERLOADED), too slow (REQUEST_TIMEOUT) or shutting down (SHUTTING_DOWN)",
} as const;

/** The error answers a route can give, all `{ error: { code, message } }`. */
export function errors<S extends keyof typeof ERROR_DESCRIPTIONS>(
  ...statuses: S[]
): Record<S, ReturnType<typeof json<typeof ErrorSchema>>> {
  const all = [...new Set<S>([400, 401, 403, ...statuses, 500, 503] as S[])];
  return Object.fromEntries(
    all.map((status) => [
      status,
      json(ErrorSchema, ERROR_DESCRIPTIONS[status]),
    ]),
  ) as Record<S, ReturnType<typeof json<typeof ErrorSchema>>>;
}
