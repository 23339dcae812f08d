import type { Context } from "hono";
import type { SessionManager } from "../session/manager/session-manager.js";
import type { SessionInfo } from "../session/contracts/session-info.js";
import { uuidFromHex } from "../session/core/hash-uuid.js";
import { tenantOf, type ServerEnv } from "./context.js";
import { errorResponse } from "./errors.js";

/**
 * `Idempotency-Key` for the writes that have no natural id: import, fork, compaction overlays,
 * compact. The first request with a key runs and its answer is stored (in the import index,
 * beside the registry, so every process over the store sees it); a retry with the same key and
 * the same request gets that answer again with `Idempotent-Replayed: true` and writes nothing,
 * and the same key with another request answers 422 `IDEMPOTENCY_KEY_REUSED`. Keys are per
 * tenant, and one key names one request, whatever its route.
 *
 * The append route needs none of this: a key there becomes the message's id (`messageIdFor`),
 * and the store's own rule for an id already taken makes the retry exact, even when two
 * processes race. A compaction, which can run for as long as its model call, claims its key
 * before it runs instead (`claimed`), so a retry that arrives while it still runs waits.
 */
export interface IdempotentRequest {
  /** The hashed `(tenant, key)`. */
  key: string;
  /** The hashed method, path, query and body: what a retry must repeat. */
  request: string;
}

/** What is kept per key: the request's hash and the answer. */
interface IdempotencyRecord {
  request: string;
  status: number;
  body: unknown;
}

/** What a claimed key holds while its request runs (`claimed`), until the answer replaces it. */
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

/** Seconds a retry of a request that still runs is asked to wait (`Retry-After`). */
const IN_PROGRESS_RETRY_SECONDS = 2;

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

/** The stored answer of an earlier request with this key, 422 for another request, or `null`. */
export async function replayed(
  manager: SessionManager,
  c: Context<ServerEnv>,
  idempotent: IdempotentRequest | null,
): Promise<Response | null> {
  if (!idempotent) return null;
  const stored = await manager.importIndex().idempotent(idempotent.key);
  if (stored === null) return null;
  const record = JSON.parse(stored) as IdempotencyRecord | IdempotencyClaim;
  if (record.request !== idempotent.request) return keyReused(c);
  if (!("status" in record)) return inProgress(c);
  c.header("Idempotent-Replayed", "true");
  return c.json(record.body as never, record.status as 200);
}

/** A claim this request holds (`claimed`): `release` it when the request fails. */
export interface HeldClaim {
  release(): Promise<void>;
}

/**
 * For a request that may run long: claims the key before it runs, atomically across processes
 * when the registry can (`setConfigIfAbsent`). Answers the held claim, or the response to send
 * instead: the stored answer (replay), 422 for another request, the answer `committed` finds
 * (the first attempt stored its result, its answer was lost: stored now and replayed), or 409
 * `IDEMPOTENCY_IN_PROGRESS` with `Retry-After` while the first attempt runs. A claim whose
 * request failed, or older than `CLAIM_STALE_MS`, is taken over by one retry. Without a key:
 * `null`, and the request runs unguarded.
 */
export async function claimed(
  manager: SessionManager,
  c: Context<ServerEnv>,
  idempotent: IdempotentRequest | null,
  committed: () => Promise<{ status: number; body: unknown } | null>,
): Promise<HeldClaim | Response | null> {
  if (!idempotent) return null;
  const index = manager.importIndex();
  const hold = (claim: IdempotencyClaim): HeldClaim => ({
    release: () =>
      index.recordIdempotent(
        idempotent.key,
        JSON.stringify({ ...claim, failed: true } satisfies IdempotencyClaim),
      ),
  });
  const newClaim = (): IdempotencyClaim => ({
    request: idempotent.request,
    claim: crypto.randomUUID(),
    at: Date.now(),
  });
  // Twice at most: a claim made between this read and the claim below is read on the second pass.
  for (let pass = 0; pass < 2; pass++) {
    const stored = await index.idempotent(idempotent.key);
    if (stored === null) {
      const claim = newClaim();
      if (await index.claimIdempotent(idempotent.key, JSON.stringify(claim)))
        return hold(claim);
      continue;
    }
    const record = JSON.parse(stored) as IdempotencyRecord | IdempotencyClaim;
    if (record.request !== idempotent.request) return keyReused(c);
    if ("status" in record) {
      c.header("Idempotent-Replayed", "true");
      return c.json(record.body as never, record.status as 200);
    }
    const found = await committed();
    if (found) {
      await remember(manager, idempotent, found.status, found.body);
      c.header("Idempotent-Replayed", "true");
      return c.json(found.body as never, found.status as 200);
    }
    if (!record.failed && Date.now() - record.at < CLAIM_STALE_MS)
      return inProgress(c);
    // One retry takes a failed or dead claim over: the takeover itself is claimed by a key that
    // names the old claim, so two retries racing for it cannot both run.
    if (
      !(await index.claimIdempotent(
        `${idempotent.key}:after:${record.claim}`,
        "taken",
      ))
    )
      return inProgress(c);
    const claim = newClaim();
    await index.recordIdempotent(idempotent.key, JSON.stringify(claim));
    return hold(claim);
  }
  return inProgress(c);
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
