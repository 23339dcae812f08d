// Shared fixtures of the manager spec files.
import type { SessionManager } from "../../session/manager/session-manager.js";
import type { SessionMessage } from "../../session/contracts/types.js";

export const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

export type ToolSet = Record<
  string,
  { execute(input: unknown): Promise<string> }
>;

export function text(id: string, value: string): SessionMessage {
  return { id, role: "user", parts: [{ type: "text", text: value }] };
}

export function ids(messages: SessionMessage[]): string[] {
  return messages.map((message) => message.id);
}

/** Lets the clock move so `updated_at` (ms resolution) can change. */
export function pause(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 3));
}

export async function populate(
  manager: SessionManager,
  id: string,
): Promise<void> {
  for (const messageId of ["u1", "a1", "u2", "a2"])
    await manager.append(id, text(messageId, `text ${messageId}`));
  await manager.append(id, text("a2-regenerated", "another answer"), "u2");
  await manager.append(id, text("old-leaf", "on the older branch"), "a2");
  await manager.addCompaction(id, "summary of the start", "u1", "a1");
  const session = manager.getSession(id);
  if (
    session.getContextBlock("memory") !== null ||
    (await session.loadContext()).some((block) => block.label === "memory")
  ) {
    await session.replaceContextBlock("memory", "likes tea");
    await session.freezeSystemPrompt();
  }
}

export async function describeSession(manager: SessionManager, id: string) {
  const session = manager.getSession(id);
  const snapshot = await session.exportSnapshot();
  return {
    messages: snapshot.messages,
    compactions: snapshot.compactions,
    latest: (await session.getLatestLeaf())?.id,
    history: await session.getHistory(),
    branches: ids(await session.getBranches("u2")),
    blocks: snapshot.contextBlocks,
    prompt: snapshot.systemPrompt,
  };
}
