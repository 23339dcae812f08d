import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { JSONValue } from "hono/utils/types";
import type { SessionManager } from "../session/manager/session-manager.js";
import type { SessionInfo } from "../session/contracts/session-info.js";
import { uuidFromHex } from "../session/encoding/hash-uuid.js";
import { tenantOf, type ServerDeps, type ServerEnv } from "./context.js";
import { errorResponse } from "./errors.js";

/**
 * `Idempotency-Key` for the writes that have no natural id: create, import, fork, compaction
 * overlays, compact, block writes. The first request with a key claims it in the store before it
 * runs (`setConfigIfAbsent`: an INSERT … ON CONFLICT DO NOTHING on the built-in backends, so one
 * request runs even when several processes share the store), and its answer replaces the claim
 * when it is done. A request with the same key and the same request that arrives meanwhile waits
 * for that answer (up to `idempotencyWaitMs`, then 409 `IDEMPOTENCY_IN_PROGRESS`), and one that
 * arrives later gets it at once; both with `Idempotent-Replayed: true` and without writing. The
 * same key with another request answers 422 `IDEMPOTENCY_KEY_REUSED`. Keys are per tenant, and
 * one key names one request, whatever its route.
 *
 * The append route needs no claim: a key there becomes the message's id (`messageIdFor`), and
 * the store's own rule for an id already taken makes the retry exact, even when two processes
 * race.
 */
export interface IdempotentRequest {
  /** The hashed `(tenant, key)`. */
  key: string;
  /** The hashed method, path, query and body: what a retry must repeat. */
  request: string;
}

/** What a guarded request answers; `replayed` when it found its own earlier write. */
export interface IdempotentAnswer {
  status: number;
  body: unknown;
  replayed?: boolean;
}

/** What is kept per key: the request's hash and the answer. */
interface IdempotencyRecord {
  request: string;
  status: number;
  body: unknown;
}

/** What a claimed key holds while its request runs, until the answer replaces it. */
interface IdempotencyClaim {
  request: string;
  /** Names this claim: a takeover of it is claimed under a key derived from it. */
  claim: string;
  /** When the claim was made (ms since the epoch). */
  at: number;
  /** Set when the request failed: a retry runs again at once. */
  failed?: true;
}

/**
 * After this long a claim whose request neither answered nor failed is taken for dead (its
 * process stopped): a retry takes it over and runs. A compaction's model call is the longest
 * request a key guards, and it takes seconds, not minutes.
 */
export const CLAIM_STALE_MS = 120_000;

/**
 * How long a request waits for the answer of the request with its key that still runs, by
 * default: long enough for an import or a compaction, well under the request timeout.
 */
export const DEFAULT_IDEMPOTENCY_WAIT_MS = 10_000;

/** Seconds a retry of a request that still runs is asked to wait (`Retry-After`). */
const IN_PROGRESS_RETRY_SECONDS = 2;

/** The longest pause between two looks at a claim that another request holds. */
const MAX_POLL_MS = 200;

/** The request's key and fingerprint, or `null` without an `Idempotency-Key` header. */
export async function idempotentRequest(
  c: Context<ServerEnv>,
  body: Uint8Array | string,
): Promise<IdempotentRequest | null> {
  const header = idempotencyHeader(c);
  if (header === null) return null;
  const url = new URL(c.req.url);
  return {
    key: await sha256(JSON.stringify([tenantOf(c), header])),
    request: await sha256(
      JSON.stringify([
        c.req.method,
        url.pathname,
        url.searchParams.toString(),
        await sha256(body),
      ]),
    ),
  };
}

/** What a takeover of a failed or dead claim looks for first. */
export interface IdempotentOptions {
  /**
   * Before a retry takes over a claim whose request failed or died: the answer its write left,
   * if it committed (so a compaction's model is not called twice), else `null` and it runs.
   */
  committed?: () => Promise<IdempotentAnswer | null>;
}

/**
 * Runs `run` once per key: without a key it just runs. With one, the key is claimed atomically
 * first; the request that holds the claim runs and stores its answer, every other request with
 * the key waits for that answer and replays it (or answers 422 for another request, or 409 when
 * the wait, `deps.idempotencyWaitMs`, ends first). A claim whose request failed, or older than
 * `CLAIM_STALE_MS`, is taken over by one retry, which runs again: each write finds what an
 * earlier attempt committed (ids from the key, the import's conversation identity, the overlay's
 * range or `meta.requestKey`), so a takeover never writes twice.
 */
export async function idempotently(
  deps: ServerDeps,
  c: Context<ServerEnv>,
  idempotent: IdempotentRequest | null,
  run: () => Promise<IdempotentAnswer>,
  options: IdempotentOptions = {},
): Promise<Response> {
  if (!idempotent) return answer(c, await run());
  const { manager } = deps;
  const held = await claim(
    manager,
    c,
    idempotent,
    deps.idempotencyWaitMs ?? DEFAULT_IDEMPOTENCY_WAIT_MS,
    options,
  );
  if (held instanceof Response) return held;
  let result: IdempotentAnswer;
  try {
    result = await run();
    await remember(manager, idempotent, result.status, result.body);
  } catch (error) {
    // Failed, or its answer could not be stored: a retry runs again (and finds what committed).
    await held.release().catch(() => undefined);
    throw error;
  }
  return answer(c, result);
}

/** Stores the answer under the key (a no-op without one). */
export async function remember(
  manager: SessionManager,
  idempotent: IdempotentRequest | null,
  status: number,
  body: unknown,
): Promise<void> {
  if (!idempotent) return;
  await manager.importIndex().recordIdempotent(
    idempotent.key,
    JSON.stringify({
      request: idempotent.request,
      status,
      body,
    } satisfies IdempotencyRecord),
  );
}

/**
 * The id a message without one gets under an `Idempotency-Key`: the same tenant, session and
 * key always give the same id (a UUID-shaped hash), so a retried append finds its first write.
 */
export function messageIdFor(
  c: Context<ServerEnv>,
  sessionId: string,
): Promise<string | null> {
  return keyedId(c, (tenant, key) => ["append", tenant, sessionId, key]);
}

/**
 * The id of the session a create (or a fork of `sourceId`) makes under an `Idempotency-Key`, by
 * the same rule: when the write committed but its answer was lost before it was stored, the retry
 * meets the session its first attempt made instead of making a second.
 */
export function sessionIdFor(
  c: Context<ServerEnv>,
  sourceId?: string,
): Promise<string | null> {
  return keyedId(c, (tenant, key) =>
    sourceId === undefined
      ? ["create", tenant, key]
      : ["fork", tenant, sourceId, key],
  );
}

/**
 * Runs a create under a key-derived `id`. When the id is taken, the first attempt committed and
 * its answer was lost: the session it made is read (`existing`, which checks the tenant) and
 * answered as a replay. Without a key a taken id is an error like any other.
 */
export async function retried(
  create: () => Promise<SessionInfo>,
  id: string | null,
  existing: (id: string) => Promise<SessionInfo>,
): Promise<{ session: SessionInfo; replayed: boolean }> {
  try {
    return { session: await create(), replayed: false };
  } catch (error) {
    if (id === null || (error as { code?: unknown }).code !== "SESSION_EXISTS")
      throw error;
    return { session: await existing(id), replayed: true };
  }
}

// --- Internal helpers ---

/**
 * A UUID-shaped hash of what `parts` lists for the tenant and the key; `null` without a key. The
 * lists are part of the stored data: a changed list would give a retry across an upgrade another
 * id.
 */
async function keyedId(
  c: Context<ServerEnv>,
  parts: (tenant: string | null, key: string) => unknown[],
): Promise<string | null> {
  const header = idempotencyHeader(c);
  if (header === null) return null;
  return uuidFromHex(await sha256(JSON.stringify(parts(tenantOf(c), header))));
}

/** A claim this request holds: `release` it when the request fails. */
interface HeldClaim {
  release(): Promise<void>;
}

/**
 * Claims the key, or answers instead: the stored answer (replay), 422 for another request, the
 * answer `committed` finds behind a failed or dead claim, or 409 when the request holding the
 * claim is still running after `waitMs`.
 */
async function claim(
  manager: SessionManager,
  c: Context<ServerEnv>,
  idempotent: IdempotentRequest,
  waitMs: number,
  options: IdempotentOptions,
): Promise<HeldClaim | Response> {
  const index = manager.importIndex();
  const hold = (held: IdempotencyClaim): HeldClaim => ({
    release: () =>
      index.recordIdempotent(
        idempotent.key,
        JSON.stringify({ ...held, failed: true } satisfies IdempotencyClaim),
      ),
  });
  const newClaim = (): IdempotencyClaim => ({
    request: idempotent.request,
    claim: crypto.randomUUID(),
    at: Date.now(),
  });
  // The wait is measured on the monotonic clock: `Date.now()` only dates claims.
  const deadline = performance.now() + waitMs;
  for (let pause = 5; ; pause = Math.min(pause * 2, MAX_POLL_MS)) {
    const stored = await index.idempotent(idempotent.key);
    const record =
      stored === null
        ? null
        : (JSON.parse(stored) as IdempotencyRecord | IdempotencyClaim);
    if (record === null) {
      const fresh = newClaim();
      if (await index.claimIdempotent(idempotent.key, JSON.stringify(fresh)))
        return hold(fresh);
      // Another request claimed it between the read and the claim: it is read after the pause.
    } else if (record.request !== idempotent.request) return keyReused(c);
    else if ("status" in record)
      return answer(c, { ...record, replayed: true });
    else if (record.failed || Date.now() - record.at >= CLAIM_STALE_MS) {
      const found = await options.committed?.();
      if (found) {
        await remember(manager, idempotent, found.status, found.body);
        return answer(c, { ...found, replayed: true });
      }
      // One retry takes a failed or dead claim over: the takeover itself is claimed by a key
      // that names the old claim, so two retries racing for it cannot both run.
      if (
        await index.claimIdempotent(
          `${idempotent.key}:after:${record.claim}`,
          "taken",
        )
      ) {
        const fresh = newClaim();
        await index.recordIdempotent(idempotent.key, JSON.stringify(fresh));
        return hold(fresh);
      }
    }
    if (performance.now() >= deadline) return inProgress(c);
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

function answer(c: Context, result: IdempotentAnswer): Response {
  if (result.replayed) c.header("Idempotent-Replayed", "true");
  // A delete answers no body, and a replay of it none either.
  if (result.status === 204) return c.body(null, 204);
  // The body is JSON data an answer built (or its stored copy) and the status one the route declares.
  return c.json(
    result.body as JSONValue,
    result.status as ContentfulStatusCode,
  );
}

function keyReused(c: Context): Response {
  return errorResponse(
    c,
    "IDEMPOTENCY_KEY_REUSED",
    "This Idempotency-Key was used for another request: use a new key for a new request",
  );
}

function inProgress(c: Context): Response {
  c.header("Retry-After", String(IN_PROGRESS_RETRY_SECONDS));
  return errorResponse(
    c,
    "IDEMPOTENCY_IN_PROGRESS",
    "A request with this Idempotency-Key is still running: retry after the Retry-After delay",
  );
}

function idempotencyHeader(c: Context): string | null {
  const header = c.req.header("Idempotency-Key");
  return header === undefined || header.trim() === "" ? null : header;
}

async function sha256(data: string | Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    typeof data === "string" ? new TextEncoder().encode(data) : data,
  );
  return [...new Uint8Array(digest)]
    .map((byte) => byte.toString(16).padStart(2, "0"))
    .join("");
}
