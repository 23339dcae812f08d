// Each fixture, written from its format's documentation, imports into a real SessionManager on
// SQLite with every branch, the active leaf, tool parts and times as the source had them.
import { describe, expect, it } from "vitest";
import {
  detectFormat,
  importConversations,
  parseConversations,
} from "../../src/formats/index.js";
import { branchesOf, fixture, ids, sqliteManager, textOf } from "./support.js";

describe("ChatGPT conversations.json", () => {
  const text = fixture("chatgpt-conversations.json");

  it("imports every conversation with its branches and current node", async () => {
    expect(detectFormat(text, "conversations.json")).toBe("chatgpt");
    const manager = sqliteManager();
    const conversations = parseConversations(text);
    const [trip, regex] = await importConversations(manager, conversations);
    expect([trip!.name, regex!.name]).toEqual([
      "Lisbon weekend plan",
      "Regex for dates",
    ]);
    // The null root, the empty system message, the editable context and the hidden node are gone.
    expect(await branchesOf(manager, trip!.id)).toEqual([
      ["u-0001", "a-0001"],
      ["u-0001", "a-0002", "u-0002", "a-0003", "a-0005"],
      ["u-0001", "a-0002", "u-0003", "a-0006"],
    ]);
    const session = manager.getSession(trip!.id);
    // current_node was the hidden "h-0001": its nearest kept ancestor is active.
    expect(ids(await session.getHistory())).toEqual([
      "u-0001",
      "a-0002",
      "u-0003",
      "a-0006",
    ]);
    const image = await session.getMessage("u-0003");
    expect(textOf(image!)).toBe(
      "[image]\nSkip Sintra. Is this restaurant near Chiado?",
    );
    const call = await session.getMessage("a-0003");
    // The call to python is a tool part; the tool's answer is its output.
    expect(call!.parts).toEqual([
      {
        type: "tool-python",
        toolCallId: "a-0003",
        state: "output-available",
        input: "train = 2 * 2 * 2.40\npalace = 2 * 20\nprint(train + palace)",
        output: "```\n49.6\n```",
      },
    ]);
    const snapshot = await manager.exportSession(trip!.id);
    expect(snapshot.messages[0]!.createdAt).toBe("2024-12-01T08:00:10.000Z");
    expect(ids(await manager.getSession(regex!.id).getHistory())).toEqual([
      "q2",
      "b2",
    ]);
  });
});

describe("OpenAI chat messages", () => {
  it("pairs tool calls with their results as AI SDK tool parts", async () => {
    const text = fixture("openai-chat.json");
    expect(detectFormat(text)).toBe("openai");
    const manager = sqliteManager();
    const [info] = await importConversations(
      manager,
      parseConversations(text, { fileName: "openai-chat.json" }),
    );
    const history = await manager.getSession(info!.id).getHistory();
    expect(history.map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
      "assistant",
      "user",
      "assistant",
    ]);
    expect(history[2]!.parts).toEqual([
      {
        type: "tool-get_weather",
        toolCallId: "call_paris",
        state: "output-available",
        input: { city: "Paris", day: "saturday" },
        output: { tempC: 14, sky: "rain" },
      },
      {
        type: "tool-get_weather",
        toolCallId: "call_berlin",
        state: "output-available",
        input: { city: "Berlin", day: "saturday" },
        output: { tempC: 9, sky: "clear" },
      },
    ]);
    expect(textOf(history[4])).toBe("Book Berlin then.");
    expect(info!.name).toBe(
      "What's the weather in Paris and in Berlin for Saturday's ...",
    );
  });
});

describe("AI SDK UIMessages", () => {
  it("keeps the messages verbatim as one chain", async () => {
    const text = fixture("ui-messages.json");
    expect(detectFormat(text)).toBe("ui-messages");
    const manager = sqliteManager();
    const [info] = await importConversations(manager, parseConversations(text));
    const history = await manager.getSession(info!.id).getHistory();
    expect(ids(history)).toEqual(["ui-1", "ui-2", "ui-3", "ui-4"]);
    expect(history[1]!.parts).toEqual(JSON.parse(text)[1].parts);
    expect(history[1]!.metadata).toEqual({ model: "gpt-4.1-mini" });
  });
});

describe("Pi session JSONL", () => {
  it("keeps the tree, folds tool results, maps the compaction to an overlay", async () => {
    const text = fixture("pi-session.jsonl");
    expect(detectFormat(text, "2026-11-20T09-00-00-000Z_0b7c9e52.jsonl")).toBe(
      "pi",
    );
    const manager = sqliteManager();
    const [info] = await importConversations(manager, parseConversations(text));
    expect(info!.name).toBe("Fix /orders 500 after deploy");
    expect(await branchesOf(manager, info!.id)).toEqual([
      [
        "u1000001",
        "a1000001",
        "a2000001",
        "a3000001",
        "u2000001",
        "a4000001",
        "a5000001",
      ],
      [
        "u1000001",
        "a1000001",
        "a2000001",
        "a3000001",
        "u3000001",
        "a6000001",
        "u4000001",
        "a7000001",
      ],
    ]);
    const session = manager.getSession(info!.id);
    // Active leaf: the last entry (a label) resolves to a7; the overlay replaces u1..a2.
    const history = await session.getHistory();
    expect(ids(history).slice(1)).toEqual([
      "a3000001",
      "u3000001",
      "a6000001",
      "u4000001",
      "a7000001",
    ]);
    expect(textOf(history[0])).toContain(
      "migration 20261119_rename_orders was still pending",
    );
    const [overlay] = await session.getCompactions();
    expect(overlay).toMatchObject({
      fromMessageId: "u1000001",
      toMessageId: "a2000001",
      meta: { summarizer: "pi", tokensBefore: 18250 },
    });
    const first = await session.getMessage("a1000001");
    expect(first!.parts).toEqual([
      {
        type: "reasoning",
        text: "Start with the API logs around the failing requests.",
      },
      {
        type: "tool-bash",
        toolCallId: "toolu_01",
        state: "output-available",
        input: { command: "tail -n 20 logs/api.log" },
        output: 'ERROR GET /orders: relation "orders_v2" does not exist',
      },
    ]);
  });
});

describe("Claude Code transcript", () => {
  it("keeps the tree with the edited message; the sidechain is a session of its own", async () => {
    const text = fixture("claude-code-session.jsonl");
    expect(detectFormat(text)).toBe("claude-code");
    const manager = sqliteManager();
    const [info, subagent] = await importConversations(
      manager,
      parseConversations(text),
    );
    expect(info!.name).toBe("Fix parseDate timezone bug");
    const id = (n: string) => `c1000000-0000-4000-8000-00000000000${n}`;
    expect(await branchesOf(manager, info!.id)).toEqual([
      [id("1"), id("2"), id("3"), id("5"), id("6"), id("7")],
      [id("1"), id("2"), id("3"), id("5"), id("8"), id("9"), id("b")],
    ]);
    // The subagent run is no branch: its own session, linked to the main one.
    expect(subagent!.parent_session_id).toBe(info!.id);
    expect(subagent!.name).toMatch(/^Fix parseDate timezone bug · subagent: /);
    expect(await branchesOf(manager, subagent!.id)).toEqual([
      [id("c"), id("d")],
    ]);
    const session = manager.getSession(info!.id);
    // The sidechain came last, but the active leaf is the main chain's last message.
    expect(ids(await session.getHistory())).toEqual([
      id("1"),
      id("2"),
      id("3"),
      id("5"),
      id("8"),
      id("9"),
      id("b"),
    ]);
    const read = await session.getMessage(id("3"));
    expect(read!.parts).toEqual([
      {
        type: "tool-Read",
        toolCallId: "toolu_01Read",
        state: "output-available",
        input: { file_path: "/home/dev/dates/src/parse-date.ts" },
        output:
          "1\texport function parseDate(text: string) {\n2\t  return new Date(text + 'T00:00');\n3\t}",
      },
    ]);
    expect((await session.getMessage(id("2")))!.parts[0]).toEqual({
      type: "reasoning",
      text: "Probably a local-time parse of a date-only string.",
    });
  });
});
