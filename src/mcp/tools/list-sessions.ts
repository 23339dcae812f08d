import type { SessionInfo } from "../../session/index.js";
import { fitPrefix } from "../budget.js";
import { cursorNumber, decodeCursor, encodeCursor } from "../cursor.js";
import type { McpScope } from "../scope.js";
import {
  CURSOR_PROPERTY,
  limitProperty,
  numberArgument,
  stringArgument,
  type ToolDefinition,
} from "./tool.js";

const NAME = "list_sessions";
const DEFAULT_LIMIT = 20;
/** Registry rows one call reads at most while filtering by `query`; the cursor continues. */
const MAX_SCANNED = 1_000;

interface SessionItem {
  id: string;
  name: string;
  createdAt: string;
  updatedAt: string;
  messageCount: number;
}

export const listSessionsTool: ToolDefinition = {
  name: NAME,
  description:
    'List the sessions (conversations) in memory, most recently updated first, with their message counts. "query" keeps the sessions whose name contains every word of it. Example: { "query": "launch", "limit": 5 }.',
  inputSchema: {
    type: "object",
    properties: {
      query: {
        type: "string",
        description:
          "Words the session name must contain (case-insensitive); omit for every session",
        maxLength: 500,
      },
      limit: limitProperty(DEFAULT_LIMIT),
      cursor: CURSOR_PROPERTY,
    },
    additionalProperties: false,
  },
  annotations: {
    title: "List sessions",
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  run: async (scope, args) => {
    const words = (stringArgument(args, "query") ?? "")
      .toLowerCase()
      .split(/\s+/)
      .filter(Boolean);
    const limit = numberArgument(args, "limit") ?? DEFAULT_LIMIT;
    const cursor = stringArgument(args, "cursor");
    const state = cursor ? decodeCursor(NAME, cursor) : null;
    const matches = (info: SessionInfo) =>
      words.every((word) => info.name.toLowerCase().includes(word));

    // A position is a registry page cursor plus how many rows of that page were consumed.
    let pageCursor = typeof state?.page === "string" ? state.page : undefined;
    let skip = state ? cursorNumber(NAME, state, "skip") : 0;
    const found: Array<{ info: SessionInfo; page?: string; index: number }> =
      [];
    let scanned = 0;
    let end: { page?: string; skip: number } | null = null;
    while (found.length < limit + 1) {
      const page = await scope.manager.listPage({
        limit: 100,
        ...(pageCursor ? { cursor: pageCursor } : {}),
        ...(scope.ownerId !== null ? { ownerId: scope.ownerId } : {}),
      });
      page.sessions.forEach((info, index) => {
        if (index < skip || found.length >= limit + 1) return;
        if (matches(info))
          found.push({
            info,
            index,
            ...(pageCursor ? { page: pageCursor } : {}),
          });
      });
      scanned += page.sessions.length - skip;
      skip = 0;
      if (found.length >= limit + 1) break;
      if (!page.nextCursor) break;
      pageCursor = page.nextCursor;
      if (scanned >= MAX_SCANNED) {
        end = { page: pageCursor, skip: 0 };
        break;
      }
    }
    const items = await Promise.all(
      found.slice(0, limit).map(({ info }) => item(scope, info)),
    );
    const fitted = fitPrefix(items, scope.tokenBudget - 100, (shown) => ({
      sessions: shown,
    }));
    const shown = items.slice(0, fitted);
    // The next page starts at the first row not shown, or where the scan stopped.
    const first = found[shown.length];
    const resume = first
      ? { ...(first.page ? { page: first.page } : {}), skip: first.index }
      : end;
    const nextCursor = resume ? encodeCursor(NAME, resume) : null;
    return {
      structured: { sessions: shown, nextCursor },
      text: render(shown, nextCursor),
    };
  },
};

// --- Internal helpers ---

async function item(scope: McpScope, info: SessionInfo): Promise<SessionItem> {
  return {
    id: info.id,
    name: info.name,
    createdAt: info.created_at,
    updatedAt: info.updated_at,
    messageCount: await scope.manager.getSession(info.id).countMessages(),
  };
}

function render(
  sessions: readonly SessionItem[],
  nextCursor: string | null,
): string {
  if (sessions.length === 0)
    return nextCursor
      ? `No matching session in this stretch; more: cursor "${nextCursor}".`
      : "No sessions.";
  const lines = sessions.map(
    (session) =>
      `- ${session.name} (${session.id}) · ${session.messageCount} messages · updated ${session.updatedAt}`,
  );
  if (nextCursor) lines.push(`More: call again with cursor "${nextCursor}".`);
  return lines.join("\n");
}
