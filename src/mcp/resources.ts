import { ArborError } from "../session/index.js";
import { tokensOf, truncateText } from "./budget.js";
import { currentBlocks } from "./current-blocks.js";
import { messageView } from "./message-text.js";
import { openScopedSession, type McpScope } from "./scope.js";

/** Sessions one `resources/list` page holds; each brings its blocks along. */
const SESSIONS_PER_PAGE = 25;
const SCHEME = "arbor://sessions/";

/** A resource as `resources/list` describes it. */
export interface ResourceItem {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType: string;
}

/** The URI templates `resources/templates/list` publishes. */
export const RESOURCE_TEMPLATES = [
  {
    uriTemplate: "arbor://sessions/{id}",
    name: "session",
    title: "Session transcript",
    description:
      "The active branch of a session as a Markdown transcript, compaction summaries applied; the newest messages that fit the token budget",
    mimeType: "text/markdown",
  },
  {
    uriTemplate: "arbor://sessions/{id}/blocks/{label}",
    name: "block",
    title: "Context block",
    description: "The current content of one context block of a session",
    mimeType: "text/plain",
  },
];

export function sessionUri(id: string): string {
  return `${SCHEME}${encodeURIComponent(id)}`;
}

export function blockUri(id: string, label: string): string {
  return `${sessionUri(id)}/blocks/${encodeURIComponent(label)}`;
}

/** One page of resources: each session of the scope, then its blocks. */
export async function listResources(
  scope: McpScope,
  cursor: string | undefined,
): Promise<{ resources: ResourceItem[]; nextCursor?: string }> {
  const page = await scope.manager.listPage({
    limit: SESSIONS_PER_PAGE,
    ...(cursor ? { cursor } : {}),
    ...(scope.ownerId !== null ? { ownerId: scope.ownerId } : {}),
  });
  const resources: ResourceItem[] = [];
  for (const info of page.sessions) {
    resources.push({
      uri: sessionUri(info.id),
      name: info.name,
      description: `Session ${info.id}, updated ${info.updated_at}`,
      mimeType: "text/markdown",
    });
    const blocks = await scope.manager.getSession(info.id).loadContext();
    for (const block of blocks) {
      resources.push({
        uri: blockUri(info.id, block.label),
        name: `${info.name} · ${block.label}`,
        ...(block.description ? { description: block.description } : {}),
        mimeType: "text/plain",
      });
    }
  }
  return {
    resources,
    ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
  };
}

/** The contents of `arbor://sessions/{id}` or `arbor://sessions/{id}/blocks/{label}`. */
export async function readResource(
  scope: McpScope,
  uri: string,
): Promise<{ uri: string; mimeType: string; text: string }> {
  const match = /^arbor:\/\/sessions\/([^/]+)(?:\/blocks\/([^/]+))?$/.exec(uri);
  if (!match) {
    throw new ArborError(
      "INVALID_ARGUMENT",
      `Unknown resource "${uri}": Arbor serves arbor://sessions/{id} and arbor://sessions/{id}/blocks/{label}`,
    );
  }
  const id = decodeURIComponent(match[1]!);
  const { session, info } = await openScopedSession(scope, id);
  const budget = scope.tokenBudget - 100;
  if (match[2] !== undefined) {
    const label = decodeURIComponent(match[2]);
    const block = (await currentBlocks(session)).find(
      (block) => block.label === label,
    );
    if (!block)
      throw new ArborError(
        "BLOCK_NOT_FOUND",
        `No context block "${label}" in session "${id}"`,
      );
    return {
      uri,
      mimeType: "text/plain",
      text: truncateText(block.content, budget).text,
    };
  }
  const history = await session.getHistory();
  const entries: string[] = [];
  let used = 0;
  // Newest first until the budget is spent; then the kept ones in reading order.
  for (let index = history.length - 1; index >= 0; index--) {
    const view = messageView(history[index]!);
    const entry = `── ${view.kind === "summary" ? "summary" : view.role} · ${view.id}\n${truncateText(view.text, Math.floor(budget / 2)).text}`;
    const cost = tokensOf(entry);
    if (entries.length > 0 && used + cost > budget) break;
    entries.unshift(entry);
    used += cost;
  }
  const omitted = history.length - entries.length;
  const head = `# ${info.name}\n\nSession ${id}: the active branch, ${history.length} messages${omitted > 0 ? `; the ${omitted} oldest are omitted (read them with the read_conversation tool)` : ""}.`;
  return {
    uri,
    mimeType: "text/markdown",
    text: [head, ...entries].join("\n\n"),
  };
}
