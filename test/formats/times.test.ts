// A conversation's own creation and update times become the session's, so sessions list in the
// order the conversations happened, not the order they were imported; on SQLite and in memory.
import { describe, expect, it } from "vitest";
import {
  importConversations,
  parseConversations,
} from "../../src/formats/index.js";
import type { SessionManager } from "../../src/session/index.js";
import { fixture, memoryManager, sqliteManager } from "./support.js";

const BACKENDS: Array<[string, () => SessionManager]> = [
  ["SQLite", sqliteManager],
  ["memory", memoryManager],
];

describe.each(BACKENDS)("conversation times on %s", (_name, makeManager) => {
  it("ChatGPT create_time and update_time become the session's", async () => {
    const manager = makeManager();
    const [trip, regex] = parseConversations(
      fixture("chatgpt-conversations.json"),
    );
    // Imported newest first: the list still orders by when they happened.
    await importConversations(manager, [regex!]);
    await importConversations(manager, [trip!]);
    const sessions = await manager.list();
    expect(
      sessions.map((info) => [info.name, info.created_at, info.updated_at]),
    ).toEqual([
      [
        "Regex for dates",
        "2024-12-01T09:23:20.000Z",
        "2024-12-01T09:25:00.000Z",
      ],
      [
        "Lisbon weekend plan",
        "2024-12-01T08:00:00.000Z",
        "2024-12-01T08:15:00.000Z",
      ],
    ]);
  });

  it.each([
    [
      "claude-code-parallel-tools.jsonl",
      "2026-11-24T09:00:01.500Z",
      "2026-11-24T09:00:21.000Z",
    ],
    [
      "pi-v1-session.jsonl",
      "2025-12-08T22:41:05.306Z",
      "2025-12-09T00:53:29.825Z",
    ],
    [
      "codex-rollout-tools.jsonl",
      "2026-11-25T16:00:00.000Z",
      "2026-11-25T16:00:48.000Z",
    ],
  ])(
    "%s: the first and last times of the file",
    async (file, created, updated) => {
      const manager = makeManager();
      const [info] = await importConversations(
        manager,
        parseConversations(fixture(file), { fileName: file }),
      );
      expect([info!.created_at, info!.updated_at]).toEqual([created, updated]);
    },
  );

  it("a file without times gets the import's", async () => {
    const manager = makeManager();
    const before = new Date().toISOString();
    const [info] = await importConversations(
      manager,
      parseConversations('[{"role":"user","content":"hi"}]'),
    );
    expect(info!.created_at >= before).toBe(true);
  });
});
