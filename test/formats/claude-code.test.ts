// Claude Code transcripts as Claude Code writes them: parallel tool calls whose results come back
// out of order stay on the active path, and the session is named after a summary of this file.
import { describe, expect, it } from "vitest";
import {
  importConversations,
  parseConversations,
} from "../../src/formats/index.js";
import { fixture, ids, sqliteManager } from "./support.js";

const PARALLEL = fixture("claude-code-parallel-tools.jsonl");
const line = (n: number) =>
  `d2000000-0000-4000-8000-0000000000${String(n).padStart(2, "0")}`;

describe("Claude Code parallel tool calls", () => {
  it("keeps every call and result of one response on the active path", async () => {
    const manager = sqliteManager();
    const [info] = await importConversations(
      manager,
      parseConversations(PARALLEL),
    );
    const history = await manager.getSession(info!.id).getHistory();
    expect(ids(history)).toEqual([
      line(1),
      line(2),
      line(3),
      line(4),
      line(5),
      line(6),
      line(10),
      line(11),
      line(13),
      line(14),
    ]);
    const calls = history.flatMap((message) =>
      message.parts.filter((part) => part.type.startsWith("tool-")),
    );
    expect(
      calls.map((part) => [part.toolCallId, part.state, typeof part.output]),
    ).toEqual([
      ["toolu_01Cart", "output-available", "string"],
      ["toolu_02Disc", "output-available", "string"],
      ["toolu_03Test", "output-available", "string"],
      ["toolu_04Edit", "output-available", "string"],
    ]);
    // No dead branch: the tree is one chain.
    const snapshot = await manager.exportSession(info!.id);
    const parents = snapshot.messages.map((record) => record.parentId);
    expect(new Set(parents).size).toBe(parents.length);
  });
});

describe("a real Claude Code transcript (trimmed), with parallel calls and a compaction", () => {
  const text = fixture("claude-code-real-compacted.jsonl");

  it("keeps every tool call on the active path, and the compaction as an overlay", async () => {
    const [parsed] = parseConversations(text);
    const byId = new Map(
      parsed!.snapshot.messages.map((record) => [record.message.id, record]),
    );
    const path: string[] = [];
    for (
      let id = parsed!.activeLeafId;
      id !== null;
      id = byId.get(id)!.parentId
    )
      path.push(id);
    // Followed literally, 21 of these 23 calls sit on dead branches.
    const calls = (ids: readonly string[]) =>
      ids.flatMap((id) =>
        byId
          .get(id)!
          .message.parts.filter((part) => part.type.startsWith("tool-")),
      );
    expect(calls([...byId.keys()])).toHaveLength(23);
    expect(calls(path)).toHaveLength(23);
    expect(path).toHaveLength(byId.size);
    // The boundary's summary replaces what came before it.
    const [overlay] = parsed!.snapshot.compactions;
    expect(overlay).toMatchObject({
      fromMessageId: parsed!.snapshot.messages[0]!.message.id,
      meta: { summarizer: "claude-code" },
    });
    const manager = sqliteManager();
    const [info] = await importConversations(manager, [parsed!]);
    const history = await manager.getSession(info!.id).getHistory();
    expect(history[0]!.id).toMatch(/^compaction_/);
    expect(history.length).toBeLessThan(path.length);
  });
});

describe("Claude Code session names", () => {
  it("takes the summary whose leaf is in the file", () => {
    const [parsed] = parseConversations(PARALLEL);
    expect(parsed!.title).toBe("Cart totals: three files read in parallel");
  });

  it("without one, takes the first user prompt that is not a command wrapper", () => {
    const foreign = PARALLEL.split("\n")
      .filter((text) => !text.includes("three files read in parallel"))
      .join("\n");
    const [parsed] = parseConversations(foreign);
    expect(parsed!.title).toBe(
      "Why does the cart total ignore the discount? Read cart.ts...",
    );
  });
});

describe("Claude Code subagent runs", () => {
  it("a file of sidechain lines only (agent-*.jsonl) is the run alone", () => {
    const lines = fixture("claude-code-session.jsonl")
      .split("\n")
      .filter((text) => text.includes('"isSidechain":true'));
    const conversations = parseConversations(lines.join("\n"));
    expect(conversations).toHaveLength(1);
    expect(conversations[0]!.parentIndex).toBeUndefined();
    expect(conversations[0]!.title).toMatch(/^Subagent: /);
    expect(conversations[0]!.snapshot.messages).toHaveLength(2);
  });
});
