import {
  isArborError,
  searchableTerms,
  type PrefixMode,
  type SearchHit,
  type SearchMode,
  type SearchScope,
} from "../../session/index.js";
import { readTime } from "../arguments.js";
import { fitPrefix, truncateText } from "../budget.js";
import { cursorNumber, decodeCursor, encodeCursor } from "../cursor.js";
import { oneLine } from "../message-text.js";
import { openScopedSession, type McpScope } from "../scope.js";
import { searchFiltered, type TimeWindow } from "../time-window.js";
import {
  CURSOR_PROPERTY,
  limitProperty,
  numberArgument,
  SESSION_ID_PROPERTY,
  stringArgument,
  type ToolDefinition,
} from "./tool.js";

const NAME = "search_memory";
const DEFAULT_LIMIT = 10;
/** Tokens of one snippet at most, so one long message cannot fill the page. */
const SNIPPET_TOKENS = 200;

/** One result of `search_memory`. */
interface MemoryHit {
  sessionId: string;
  sessionName: string;
  messageId: string;
  role: string;
  /** `"summary"`: a compaction overlay found by its summary. */
  kind: "message" | "summary";
  createdAt: string | null;
  snippet: string;
  /** `"active"`: on the session's active branch; `"other"`: on a branch it left. */
  branch: "active" | "other";
  /** Why it matched: by its words, by meaning, or both; and the ranking score. */
  matched: { text: boolean; semantic: boolean };
  score: number | null;
}

export const searchMemoryTool: ToolDefinition = {
  name: NAME,
  description:
    'Search everything remembered: past conversations across sessions (or one), ranked. Each result gives its snippet (matched words in «»), session name, time, whether it is on the active branch, and why it matched. Follow up with read_conversation { sessionId, aroundMessageId } to read around a hit. Example: { "query": "launch budget" }.',
  inputSchema: {
    type: "object",
    properties: {
      query: {
        type: "string",
        description:
          'What to look for: a question or a few words, e.g. "what did we decide about the launch budget?". Results matching more of its words rank first',
        minLength: 1,
        maxLength: 2_000,
      },
      mode: {
        type: "string",
        enum: ["text", "semantic", "hybrid"],
        description:
          '"text" matches words; "semantic" and "hybrid" need a server with embeddings. Default: hybrid with embeddings, text without',
      },
      scope: {
        type: "string",
        enum: ["session", "branch"],
        description:
          '"session" (default): every branch; "branch": only what is on each session\'s active branch',
      },
      sessionId: {
        ...SESSION_ID_PROPERTY,
        description: "Search this session only",
      },
      since: {
        type: "string",
        description:
          "Only messages created at or after this ISO 8601 date or time (2026-11-01, 2026-11-01T09:00:00Z)",
      },
      until: {
        type: "string",
        description:
          "Only messages created at or before this ISO 8601 date or time",
      },
      prefix: {
        type: "string",
        enum: ["last", "all"],
        description:
          '"last": the query\'s last word matches as the start of a word, as in a search box ("launch budg" finds "launch budget"); "all": every word does. Default: whole words',
      },
      limit: limitProperty(DEFAULT_LIMIT),
      cursor: CURSOR_PROPERTY,
    },
    required: ["query"],
    additionalProperties: false,
  },
  annotations: {
    title: "Search memory",
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  run: async (scope, args) => {
    const query = stringArgument(args, "query")!;
    const mode = stringArgument(args, "mode") as SearchMode | undefined;
    const searchScope = stringArgument(args, "scope") as
      SearchScope | undefined;
    const sessionId = stringArgument(args, "sessionId");
    const prefix = stringArgument(args, "prefix") as PrefixMode | undefined;
    const window = {
      ...optional("since", readTime(NAME, "since", args.get("since"))),
      ...optional("until", readTime(NAME, "until", args.get("until"))),
    };
    const limit = numberArgument(args, "limit") ?? DEFAULT_LIMIT;
    const cursor = stringArgument(args, "cursor");
    const offset = cursor
      ? cursorNumber(NAME, decodeCursor(NAME, cursor), "offset")
      : 0;

    const search = await searcher(scope, query, {
      mode,
      searchScope,
      sessionId,
      window,
      prefix,
    });
    // One more than the page: it tells whether a next page exists.
    const hits = await search(offset + limit + 1);
    const page = hits.slice(offset, offset + limit);
    const results = await describe(scope, page, sessionId);
    const build = (items: readonly MemoryHit[]) => ({ query, results: items });
    const fitted = fitPrefix(results, scope.tokenBudget - 100, build);
    const shown = results.slice(0, fitted);
    const next = offset + shown.length;
    const nextCursor =
      hits.length > next ? encodeCursor(NAME, { offset: next }) : null;
    return {
      structured: { query, results: shown, nextCursor },
      text: render(query, shown, nextCursor),
    };
  },
};

// --- Internal helpers ---

/**
 * A search of the scope's sessions that takes the number of hits to read. Without a mode it asks
 * for hybrid results and falls back to text when the store has no embeddings: either way the
 * hits carry their explanations (snippet, branch, what matched). Text ranking matches any of the
 * query's words (the search default), so a whole question finds its keywords; `since`/`until`
 * are the search's own time filter.
 */
async function searcher(
  scope: McpScope,
  query: string,
  options: {
    mode: SearchMode | undefined;
    searchScope: SearchScope | undefined;
    sessionId: string | undefined;
    window: TimeWindow;
    prefix: PrefixMode | undefined;
  },
): Promise<(limit: number) => Promise<SearchHit[]>> {
  const { manager, ownerId } = scope;
  const { sessionId, searchScope, prefix } = options;
  // The time window and the prefix mode pass to every search alike.
  const window = { ...options.window, ...(prefix ? { prefix } : {}) };
  const session = sessionId
    ? (await openScopedSession(scope, sessionId)).session
    : null;
  const acrossSessions = (mode: SearchMode, limit: number) =>
    manager.search(query, {
      limit,
      mode,
      ...window,
      ...(ownerId !== null ? { ownerId } : {}),
    });
  const run = (mode: SearchMode, limit: number) =>
    session
      ? session.search(query, {
          limit,
          mode,
          ...window,
          ...(searchScope ? { scope: searchScope } : {}),
        })
      : searchScope === "branch"
        ? // Across sessions the branch scope keeps the hits on each session's active branch.
          searchFiltered(
            (wanted) => acrossSessions(mode, wanted),
            (hit) => hit.onActiveBranch !== false,
            limit,
          )
        : acrossSessions(mode, limit);
  let mode: SearchMode | undefined = options.mode;
  return async (limit) => {
    if (mode) return run(mode, limit);
    try {
      const hits = await run("hybrid", limit);
      mode = "hybrid";
      return hits;
    } catch (error) {
      if (!isArborError(error) || error.code !== "NOT_SUPPORTED") throw error;
      mode = "text";
      return run("text", limit);
    }
  };
}

async function describe(
  scope: McpScope,
  hits: SearchHit[],
  sessionId: string | undefined,
): Promise<MemoryHit[]> {
  const names = new Map<string, string>();
  const results: MemoryHit[] = [];
  for (const hit of hits) {
    const id = hit.sessionId ?? sessionId ?? "";
    if (!names.has(id))
      names.set(id, (await scope.manager.get(id))?.name ?? "(deleted)");
    results.push({
      sessionId: id,
      sessionName: names.get(id)!,
      messageId: hit.id,
      role: hit.role,
      kind: hit.kind ?? "message",
      createdAt: hit.createdAt ?? null,
      snippet: truncateText(
        hit.snippet ?? oneLine(hit.content, 300),
        SNIPPET_TOKENS,
      ).text,
      branch: hit.onActiveBranch === false ? "other" : "active",
      matched: hit.matched ?? { text: true, semantic: false },
      score: typeof hit.score === "number" ? round(hit.score) : null,
    });
  }
  return results;
}

function render(
  query: string,
  results: readonly MemoryHit[],
  nextCursor: string | null,
): string {
  if (results.length === 0)
    return searchableTerms(query).length === 0
      ? `Nothing to search for in "${query}": a text search matches words (letters or digits), and the query has none. Ask with words.`
      : `No memory matches "${query}". Try other words, or a wider since/until.`;
  const lines = results.map((hit, index) => {
    const why = [
      hit.matched.text ? "words" : null,
      hit.matched.semantic ? "meaning" : null,
    ]
      .filter(Boolean)
      .join("+");
    const where = `${hit.sessionName} (${hit.sessionId}) · ${hit.messageId} · ${hit.kind === "summary" ? "summary" : hit.role} · ${hit.createdAt ?? "no time"} · ${hit.branch} branch · matched ${why}`;
    return `${index + 1}. ${where}\n   ${oneLine(hit.snippet, 400)}`;
  });
  if (nextCursor) lines.push(`More: call again with cursor "${nextCursor}".`);
  return lines.join("\n");
}

function optional<K extends string, V>(
  key: K,
  value: V | undefined,
): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}

function round(score: number): number {
  return Math.round(score * 10_000) / 10_000;
}
