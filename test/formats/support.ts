// Shared helpers of the formats tests: real managers (SQLite in memory, or the in-memory backend)
// configured like the CLI, and readers of a session's whole tree.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { SessionManager } from "../../src/session/index.js";
import type { SessionMessage } from "../../src/session/index.js";
import { openSqlite } from "../../src/sqlite/index.js";

export const FIXTURES = fileURLToPath(new URL("./fixtures/", import.meta.url));

export function fixture(name: string): string {
  return readFileSync(`${FIXTURES}${name}`, "utf8");
}

/** A manager as the CLI makes it: a writable `memory` block of at most 2000 tokens. */
export function sqliteManager(): SessionManager {
  return SessionManager.create(openSqlite(":memory:")).withContext("memory", {
    maxTokens: 2000,
  });
}

export function memoryManager(): SessionManager {
  return SessionManager.inMemory().withContext("memory", { maxTokens: 2000 });
}

/** Every root-to-leaf path of a session as lists of ids (children oldest first). */
export async function branchesOf(
  manager: SessionManager,
  sessionId: string,
): Promise<string[][]> {
  const snapshot = await manager.exportSession(sessionId);
  const children = new Map<string | null, string[]>();
  for (const { message, parentId } of snapshot.messages)
    children.set(parentId, [...(children.get(parentId) ?? []), message.id]);
  const paths: string[][] = [];
  const walk = (id: string, path: string[]) => {
    const next = children.get(id) ?? [];
    if (next.length === 0) paths.push([...path, id]);
    for (const child of next) walk(child, [...path, id]);
  };
  for (const root of children.get(null) ?? []) walk(root, []);
  return paths;
}

export function ids(messages: readonly SessionMessage[]): string[] {
  return messages.map((message) => message.id);
}

export function textOf(message: SessionMessage | undefined): string {
  return (message?.parts ?? [])
    .map((part) => (part.type === "text" ? String(part.text) : ""))
    .join("");
}
