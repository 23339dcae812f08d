/**
 * Links from a conversation's subagent calls (`Task`, `Agent`) to the subagent transcripts.
 * An import stores each subagent run as a session of its own whose `parent_session_id` is the
 * conversation's session, and whose first message is the prompt the call gave the subagent:
 * a call links to the child session that starts with its prompt (or, when prompts do not tell,
 * to the child in the same place of the order).
 */
import { api } from "../api.js";
import type { Message, SessionView } from "../api-types.js";
import { sessionHref } from "../router.js";
import { isToolPart, toolCall, type PartLinks } from "./message-parts.js";

/** The tools whose calls start a subagent. */
const SUBAGENT_TOOLS = new Set(["Task", "Agent"]);
/** Pages of the session list read to find the children (100 sessions each). */
const MAX_PAGES = 20;

/** The subagent calls among the messages, in order. */
export function subagentCalls(
  messages: readonly Message[],
): Array<{ id: string | null; prompt: string }> {
  return messages.flatMap((message) =>
    message.parts.filter(isToolPart).flatMap((part) => {
      const call = toolCall(part);
      if (!SUBAGENT_TOOLS.has(call.name)) return [];
      const input = (call.input ?? {}) as Record<string, unknown>;
      const prompt =
        typeof input.prompt === "string"
          ? input.prompt
          : typeof input.description === "string"
            ? input.description
            : "";
      return [{ id: call.id, prompt }];
    }),
  );
}

/** Links for the subagent calls in `messages` (none when there are no calls or no children). */
export async function subagentLinks(
  sessionId: string,
  messages: readonly Message[],
): Promise<PartLinks> {
  const calls = subagentCalls(messages);
  if (calls.length === 0) return {};
  const children = await childSessions(sessionId);
  if (children.length === 0) return {};
  const starts = await Promise.all(
    children.map(async (child) => {
      const tree = await api.tree(child.id);
      const root = tree.nodes.find((node) => node.parentId === null);
      return normalize(root?.preview ?? "");
    }),
  );
  const byCall = new Map<string, string>();
  const unmatched = children.map((_, index) => index);
  calls.forEach((call, order) => {
    const prompt = normalize(call.prompt);
    let index =
      prompt === ""
        ? -1
        : (unmatched.find(
            (candidate) =>
              starts[candidate] !== "" &&
              (prompt.startsWith(starts[candidate]!) ||
                starts[candidate]!.startsWith(prompt)),
          ) ?? -1);
    // Without a telling prompt, the same place in the order (imports keep the runs' order).
    if (index === -1 && children.length === calls.length) index = order;
    if (index === -1 || !unmatched.includes(index)) return;
    unmatched.splice(unmatched.indexOf(index), 1);
    byCall.set(call.id ?? `#${order}`, children[index]!.id);
  });
  if (byCall.size === 0) return {};
  return {
    subagentHref: (call) => {
      const child = call.id === null ? undefined : byCall.get(call.id);
      return child ? sessionHref(child) : null;
    },
  };
}

/** The sessions started by this one, oldest first. */
async function childSessions(sessionId: string): Promise<SessionView[]> {
  const children: SessionView[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await api.listSessions({
      limit: 100,
      ...(cursor ? { cursor } : {}),
    });
    children.push(
      ...answer.sessions.filter(
        (session) => session.parent_session_id === sessionId,
      ),
    );
    if (!answer.nextCursor) break;
    cursor = answer.nextCursor;
  }
  return children.sort((a, b) => a.created_at.localeCompare(b.created_at));
}

function normalize(text: string): string {
  return text.replace(/\s+/g, " ").trim().slice(0, 100);
}
