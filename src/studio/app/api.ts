/** The studio's only way to the data: the public HTTP API, with the key from auth.ts when set. */
import type {
  Block,
  BlockVersion,
  Compaction,
  ContextWindow,
  CreateBlock,
  Message,
  PromptAnswer,
  RecentHistory,
  SearchHit,
  SessionPage,
  SessionView,
  TreeAnswer,
} from "./api-types.js";
import { askForKey, authHeaders } from "./auth.js";
import { h } from "./dom.js";

/** A non-2xx answer: the HTTP status and the API's `{ error: { code, message } }`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/**
 * The server did not answer at all (stopped, restarting, network down): the browser's own
 * "Failed to fetch" says none of that, so the studio says it in words.
 */
export class UnreachableError extends Error {
  constructor(readonly origin: string) {
    super(
      `The Arbor server at ${origin} cannot be reached: it may have stopped, or the network is down. ` +
        "The studio keeps trying and reloads this view when the server answers again.",
    );
    this.name = "UnreachableError";
  }
}

type ReachabilityListener = (reachable: boolean) => void;
const reachabilityListeners = new Set<ReachabilityListener>();

/** Calls `listener` whenever a request reaches the server (`true`) or cannot (`false`). */
export function onReachability(listener: ReachabilityListener): () => void {
  reachabilityListeners.add(listener);
  return () => reachabilityListeners.delete(listener);
}

/** Tells the listeners whether the server answered; the live feed reports here too. */
export function reportReachable(reachable: boolean): void {
  for (const listener of reachabilityListeners) listener(reachable);
}

/** `fetch`, with a failure to reach the server turned into an `UnreachableError`. */
export async function reach(
  input: string,
  init?: RequestInit,
): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(input, init);
  } catch (error) {
    // An abort is the caller's own doing, not the server's.
    if (init?.signal?.aborted) throw error;
    reportReachable(false);
    throw new UnreachableError(location.origin);
  }
  reportReachable(true);
  return response;
}

let writes = 0;

/** How many writes the studio has sent: a read from before a write may be out of date. */
export function writeCount(): number {
  return writes;
}

/** Sends a request; a 401 asks for a key and tries again until it passes or the user gives up. */
export async function request<T>(
  path: string,
  init: { method?: string; body?: unknown; key?: string } = {},
): Promise<T> {
  if ((init.method ?? "GET") !== "GET") writes++;
  for (;;) {
    const headers: Record<string, string> = { ...authHeaders() };
    // The same key on every attempt (a 401's retry too): the server runs the write once.
    if (init.key) headers["idempotency-key"] = init.key;
    if (init.body !== undefined) headers["content-type"] = "application/json";
    const response = await reach(path, {
      method: init.method ?? "GET",
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    if (response.status === 401 && (await askForKey())) continue;
    if (!response.ok) throw await toApiError(response);
    if (response.status === 204) return undefined as T;
    return (await response.json()) as T;
  }
}

/**
 * Reads a file the server hands out (an export) and saves it under the name the server gives
 * (`Content-Disposition`). A read: nothing is written on the server.
 */
export async function download(path: string): Promise<string> {
  for (;;) {
    const response = await reach(path, { headers: authHeaders() });
    if (response.status === 401 && (await askForKey())) continue;
    if (!response.ok) throw await toApiError(response);
    const name =
      /filename="([^"]+)"/.exec(
        response.headers.get("content-disposition") ?? "",
      )?.[1] ?? "export";
    const url = URL.createObjectURL(await response.blob());
    const link = h("a", { href: url, download: name, hidden: true });
    document.body.append(link);
    link.click();
    link.remove();
    // The click has started the save; the object URL only has to outlive it.
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
    return name;
  }
}

/** Reads an error answer into an `ApiError`, whatever its body. */
export async function toApiError(response: Response): Promise<ApiError> {
  const text = await response.text();
  try {
    const { error } = JSON.parse(text) as {
      error: { code: string; message: string };
    };
    return new ApiError(response.status, error.code, error.message);
  } catch {
    return new ApiError(response.status, `HTTP_${response.status}`, text);
  }
}

const session = (id: string) => `/v1/sessions/${encodeURIComponent(id)}`;
const query = (params: Record<string, string | number | null | undefined>) => {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    if (value !== null && value !== undefined && value !== "")
      search.set(key, String(value));
  const text = search.toString();
  return text ? "?" + text : "";
};

/** The routes the studio uses, one function each. */
export const api = {
  listSessions: (options: {
    limit: number;
    cursor?: string;
    owner?: string;
    /** A session id (the sessions it started) or `none` (the top level). */
    parent?: string;
  }) => request<SessionPage>("/v1/sessions" + query(options)),
  getSession: (id: string) => request<SessionView>(session(id)),
  renameSession: (id: string, name: string) =>
    request<SessionView>(session(id), { method: "PATCH", body: { name } }),
  /** Erases the session (and everything derived from it) for good. */
  deleteSession: (id: string) =>
    request<void>(session(id), { method: "DELETE" }),
  /** A new session holding the path up to `messageId`. */
  forkSession: (id: string, messageId: string) =>
    request<SessionView>(session(id) + "/fork", {
      method: "POST",
      body: { messageId },
    }),
  /** Saves the session as `arbor export` writes it: jsonl, snapshot or markdown (one branch). */
  exportSession: (
    id: string,
    format: "jsonl" | "snapshot" | "markdown",
    leafId?: string | null,
  ) => download(session(id) + "/export" + query({ format, leafId })),
  tree: (id: string) => request<TreeAnswer>(session(id) + "/tree"),
  history: (id: string, leafId?: string | null) =>
    request<{ messages: Message[]; leafId: string | null }>(
      session(id) + "/history" + query({ leafId }),
    ),
  /** The end of the path to `leafId` (the active leaf by default) within `maxBytes` of content. */
  recent: (id: string, maxBytes: number, leafId?: string | null) =>
    request<RecentHistory & { messages: Message[] }>(
      session(id) + "/history/recent" + query({ maxBytes, leafId }),
    ),
  message: (id: string, messageId: string) =>
    request<{ message: Message }>(
      session(id) + "/messages/" + encodeURIComponent(messageId),
    ),
  setLeaf: (id: string, leafId: string) =>
    request<{ leafId: string }>(session(id) + "/leaf", {
      method: "PUT",
      body: { leafId },
    }),
  compactions: (id: string) =>
    request<{ compactions: Compaction[] }>(session(id) + "/compactions"),
  deleteCompaction: (id: string, compactionId: string) =>
    request<void>(
      session(id) + "/compactions/" + encodeURIComponent(compactionId),
      { method: "DELETE" },
    ),
  blocks: (id: string) => request<{ blocks: Block[] }>(session(id) + "/blocks"),
  blockHistory: (id: string, label: string) =>
    request<{ versions: BlockVersion[] }>(
      session(id) + "/blocks/" + encodeURIComponent(label) + "/history",
    ),
  /** Writes a block's content: a new version in its history. */
  replaceBlock: (id: string, label: string, content: string) =>
    request<Block>(session(id) + "/blocks/" + encodeURIComponent(label), {
      method: "PUT",
      body: { content },
    }),
  /**
   * Creates a block stored with the session; `key` (one per form submission) makes a repeated
   * submit answer the same block instead of writing twice.
   */
  createBlock: (id: string, body: CreateBlock, key: string) =>
    request<Block>(session(id) + "/blocks", { method: "POST", body, key }),
  /** Removes a block created in the session (definition, content, history). */
  deleteBlock: (id: string, label: string) =>
    request<void>(session(id) + "/blocks/" + encodeURIComponent(label), {
      method: "DELETE",
    }),
  revertBlock: (id: string, label: string, version: number) =>
    request<Block>(
      session(id) + "/blocks/" + encodeURIComponent(label) + "/revert",
      { method: "POST", body: { version } },
    ),
  prompt: (id: string) => request<PromptAnswer>(session(id) + "/prompt"),
  /** What a turn would send at a leaf (computed by the server, never stored). */
  contextWindow: (
    id: string,
    params: Record<string, string | number | null | undefined>,
  ) => request<ContextWindow>(session(id) + "/context" + query(params)),
  refreshPrompt: (id: string) =>
    request<{ prompt: string | null }>(session(id) + "/prompt/refresh", {
      method: "POST",
    }),
  // A search box: the word being typed matches as a prefix ("budg" finds "budget").
  searchSession: (id: string, q: string, limit = 50) =>
    request<{ results: SearchHit[] }>(
      session(id) + "/search" + query({ q, limit, prefix: "last" }),
    ),
  searchAll: (q: string, limit = 50) =>
    request<{ results: SearchHit[] }>(
      "/v1/search" + query({ q, limit, prefix: "last" }),
    ),
  eventsUrl: (id: string) => session(id) + "/events",
};
