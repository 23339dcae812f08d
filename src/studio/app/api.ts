/** The studio's only way to the data: the public HTTP API, with the key from auth.ts when set. */
import type {
  Block,
  BlockVersion,
  Compaction,
  Message,
  PromptAnswer,
  SearchHit,
  SessionView,
  TreeAnswer,
} from "./api-types.js";
import { askForKey, authHeaders } from "./auth.js";

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

/** One page of `GET /v1/sessions`. */
export interface SessionPage {
  sessions: SessionView[];
  nextCursor: string | null;
}

/** Sends a request; a 401 asks for a key and tries again until it passes or the user gives up. */
export async function request<T>(
  path: string,
  init: { method?: string; body?: unknown } = {},
): Promise<T> {
  for (;;) {
    const headers: Record<string, string> = { ...authHeaders() };
    if (init.body !== undefined) headers["content-type"] = "application/json";
    const response = await fetch(path, {
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

/** Reads an error answer into an `ApiError`, whatever its body. */
export async function toApiError(response: Response): Promise<ApiError> {
  const text = await response.text();
  try {
    const { error } = JSON.parse(text) as {
      error: { code: string; message: string };
    };
    return new ApiError(response.status, error.code, error.message);
  } catch {
    return new ApiError(response.status, "HTTP_" + response.status, text);
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
  listSessions: (options: { limit: number; cursor?: string; owner?: string }) =>
    request<SessionPage>("/v1/sessions" + query(options)),
  getSession: (id: string) => request<SessionView>(session(id)),
  tree: (id: string) => request<TreeAnswer>(session(id) + "/tree"),
  history: (id: string, leafId?: string | null) =>
    request<{ messages: Message[]; leafId: string | null }>(
      session(id) + "/history" + query({ leafId }),
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
  revertBlock: (id: string, label: string, version: number) =>
    request<Block>(
      session(id) + "/blocks/" + encodeURIComponent(label) + "/revert",
      { method: "POST", body: { version } },
    ),
  prompt: (id: string) => request<PromptAnswer>(session(id) + "/prompt"),
  refreshPrompt: (id: string) =>
    request<{ prompt: string | null }>(session(id) + "/prompt/refresh", {
      method: "POST",
    }),
  searchSession: (id: string, q: string, limit = 50) =>
    request<{ results: SearchHit[] }>(
      session(id) + "/search" + query({ q, limit }),
    ),
  searchAll: (q: string, limit = 50) =>
    request<{ results: SearchHit[] }>("/v1/search" + query({ q, limit })),
  eventsUrl: (id: string) => session(id) + "/events",
};
