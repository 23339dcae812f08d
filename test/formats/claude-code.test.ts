// Claude Code transcripts as Claude Code writes them: parallel tool calls whose results come back
// out of order stay on the active path, and the session is named after a summary of this file.
import { describe, expect, it } from "vitest";
import {
  importConversations,
  parseConversations,
} from "../../src/formats/index.js";
import { firstUserWords } from "../../src/formats/tree.js";
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

describe("Claude Code 2.x subagent files (agent-*.jsonl beside the session)", () => {
  const SESSION_FILE = "5b0e7c1d-3f2a-4c8e-9d61-0a7e4f2b9c35.jsonl";
  const AGENT_FILE = "agent-a7c31f0.jsonl";
  const session = fixture(`claude-code-2x/${SESSION_FILE}`);
  const agent = fixture(`claude-code-2x/${AGENT_FILE}`);
  const importFile = (
    manager: ReturnType<typeof sqliteManager>,
    text: string,
    fileName: string,
  ) => importConversations(manager, parseConversations(text, { fileName }));

  /** The session's Task call prompt and the subagent session's first message. */
  async function linked(
    manager: ReturnType<typeof sqliteManager>,
    parentId: string,
    childId: string,
  ) {
    const child = await manager.get(childId);
    expect(child!.parent_session_id).toBe(parentId);
    const task = (await manager.getSession(parentId).getHistory())
      .flatMap((message) => message.parts)
      .find((part) => part.type === "tool-Task");
    const [first] = await manager.getSession(childId).getHistory();
    // The studio links a Task call to the child session that starts with its prompt.
    expect((task!.input as { prompt: string }).prompt).toBe(
      first!.parts[0]!.text,
    );
  }

  it("links the subagent to its session when the session was imported first", async () => {
    const manager = sqliteManager();
    const [main] = await importFile(manager, session, SESSION_FILE);
    const [sub] = await importFile(manager, agent, AGENT_FILE);
    expect(main!.parent_session_id).toBeNull();
    await linked(manager, main!.id, sub!.id);
  });

  it("links the subagent to its session when the subagent file was imported first", async () => {
    const manager = sqliteManager();
    const [sub] = await importFile(manager, agent, AGENT_FILE);
    expect(sub!.parent_session_id).toBeNull();
    const [main] = await importFile(manager, session, SESSION_FILE);
    await linked(manager, main!.id, sub!.id);
    // Importing both again adds nothing and keeps the link.
    await importFile(manager, agent, AGENT_FILE);
    await importFile(manager, session, SESSION_FILE);
    expect(await manager.list()).toHaveLength(2);
    await linked(manager, main!.id, sub!.id);
  });

  it("links a subagent to the session of its owner only", async () => {
    const manager = sqliteManager();
    const [main] = await importConversations(
      manager,
      parseConversations(session, { fileName: SESSION_FILE }),
      { ownerId: "alice" },
    );
    const [sub] = await importConversations(
      manager,
      parseConversations(agent, { fileName: AGENT_FILE }),
      { ownerId: "bob" },
    );
    expect(main!.parent_session_id).toBeNull();
    expect((await manager.get(sub!.id))!.parent_session_id).toBeNull();
  });
});

describe("Claude Code injected context and names", () => {
  const text = fixture(
    "claude-code-2x/5b0e7c1d-3f2a-4c8e-9d61-0a7e4f2b9c35.jsonl",
  );

  it("keeps the caveat, the slash command and its output whole, marked as context, and names the session after the prompt", async () => {
    const [parsed] = parseConversations(text, {
      fileName: "5b0e7c1d-3f2a-4c8e-9d61-0a7e4f2b9c35.jsonl",
    });
    expect(parsed!.title).toBe(
      "Totals on the invoice export are off by a cent now and th...",
    );
    const manager = sqliteManager();
    const [info] = await importConversations(manager, [parsed!]);
    const users = (await manager.getSession(info!.id).getHistory()).filter(
      (message) => message.role === "user",
    );
    expect(
      users.map((message) => [
        (message.metadata as { injectedContext?: string } | undefined)
          ?.injectedContext ?? null,
        message.parts[0]!.text!.slice(0, 24),
      ]),
    ).toEqual([
      ["system-reminder", "Caveat: The messages bel"],
      ["slash-command", "<command-name>/clear</co"],
      ["command-output", "<local-command-stdout></"],
      [null, "Totals on the invoice ex"],
    ]);
    // Stored whole: the wrapper's text is the line's text.
    expect(users[1]!.parts[0]!.text).toContain(
      "<command-message>clear</command-message>",
    );
  });

  it("names a session after its slash command when no prompt follows, never after the file", () => {
    // The caveat, `/clear` and its (empty) output: the lines before the first prompt.
    const only = text.split("\n").slice(0, 5).join("\n");
    const [parsed] = parseConversations(only, { fileName: "session.jsonl" });
    expect(parsed!.title).toBe("/clear");
  });
});

describe("firstUserWords", () => {
  const user = (id: string, text: string, injectedContext?: string) => ({
    parentId: null,
    createdAt: "2026-02-03T09:00:00.000Z",
    message: {
      id,
      role: "user",
      parts: [{ type: "text", text }],
      ...(injectedContext ? { metadata: { injectedContext } } : {}),
    },
  });

  it("skips messages marked as injected context and slash commands typed as text", () => {
    expect(
      firstUserWords(
        [
          user(
            "1",
            "# AGENTS.md instructions for /repo\n\nAlways run the tests.",
            "agents-md",
          ),
          user(
            "2",
            "<environment_context>cwd /repo</environment_context>",
            "environment-context",
          ),
          user("3", "/review src/parser.ts"),
          user("4", "Why does the parser drop the last line?"),
        ],
        "rollout.jsonl",
      ),
    ).toBe("Why does the parser drop the last line?");
    expect(
      firstUserWords([user("1", "/usr/local/bin is not on PATH")], "x.jsonl"),
    ).toBe("/usr/local/bin is not on PATH");
  });
});
