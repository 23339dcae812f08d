// Format detection by structure (file name as a tie-breaker) and the Markdown transcript.
import { describe, expect, it } from "vitest";
import {
  detectFormat,
  importConversations,
  parseConversations,
  toMarkdown,
  toSnapshotJson,
} from "../../src/formats/index.js";
import type { SessionMessage } from "../../src/session/index.js";
import { fixture, sqliteManager } from "./support.js";

describe("detectFormat", () => {
  it.each([
    ["chatgpt-conversations.json", "chatgpt"],
    ["openai-chat.json", "openai"],
    ["ui-messages.json", "ui-messages"],
    ["pi-session.jsonl", "pi"],
    ["claude-code-session.jsonl", "claude-code"],
    ["../../../examples/sample/sample.arbor.jsonl", "arbor-jsonl"],
  ])("%s is %s", (name, format) => {
    expect(detectFormat(fixture(name))).toBe(format);
  });

  it("tells the JSON documents apart by their keys", () => {
    const snapshot = toSnapshotJson({
      format: "arbor.session",
      version: 1,
      sessionId: "s",
      exportedAt: "",
      messages: [],
      compactions: [],
    });
    expect(detectFormat(snapshot)).toBe("snapshot");
    expect(detectFormat('[{"role":"user","content":"hi"}]')).toBe("openai");
    expect(
      detectFormat('{"messages":[{"id":"1","role":"user","parts":[]}]}'),
    ).toBe("ui-messages");
    expect(detectFormat('{"title":"t","mapping":{}}')).toBe("chatgpt");
    // An empty array is a ChatGPT export only under its usual name.
    expect(detectFormat("[]", "exports/conversations.json")).toBe("chatgpt");
    expect(detectFormat("[]", "chat.json")).toBe("ui-messages");
  });

  it("rejects what it cannot name", () => {
    expect(() => detectFormat('{"a":1}\n{"b":2}\n')).toThrowError(
      expect.objectContaining({
        code: "INVALID_IMPORT",
        message: expect.stringMatching(/^unknown JSONL format/),
      }),
    );
    expect(() => detectFormat('[{"x":1}]')).toThrow(
      /^unknown format: a JSON document/,
    );
  });
});

describe("toMarkdown", () => {
  it("writes roles as headings, reasoning quoted and tool calls on one line", () => {
    const messages: SessionMessage[] = [
      {
        id: "1",
        role: "user",
        parts: [{ type: "text", text: "Weather in Oslo?" }],
      },
      {
        id: "2",
        role: "assistant",
        parts: [
          { type: "reasoning", text: "Look it up." },
          {
            type: "tool-weather",
            toolCallId: "c1",
            state: "output-available",
            input: { city: "Oslo" },
            output: { tempC: -3 },
          },
          {
            type: "dynamic-tool",
            toolName: "alerts",
            toolCallId: "c2",
            state: "output-error",
            input: {},
            errorText: "timeout",
          },
          { type: "text", text: "It is -3 °C." },
        ],
      },
    ];
    expect(toMarkdown({ name: "Oslo" }, messages)).toBe(
      [
        "# Oslo",
        "## User",
        "Weather in Oslo?",
        "## Assistant",
        "> Look it up.",
        '**Tool `weather`** `{"city":"Oslo"}` → `{"tempC":-3}`',
        "**Tool `alerts`** `{}` → error: timeout",
        "It is -3 °C.",
      ].join("\n\n") + "\n",
    );
  });

  it("heads an overlay's summary as a summary, not as an assistant turn", () => {
    const markdown = toMarkdown({ name: "n" }, [
      {
        id: "compaction_42",
        role: "assistant",
        parts: [{ type: "text", text: "They agreed on Friday." }],
      },
      { id: "u", role: "user", parts: [{ type: "text", text: "And then?" }] },
    ]);
    expect(markdown).toBe(
      "# n\n\n## Summary of earlier messages\n\nThey agreed on Friday.\n\n## User\n\nAnd then?\n",
    );
  });

  it("cuts long tool input to 200 characters", () => {
    const long = {
      type: "tool-write",
      toolCallId: "c",
      state: "input-available",
      input: "x".repeat(500),
    };
    const markdown = toMarkdown({ name: "n" }, [
      { id: "a", role: "assistant", parts: [long] },
    ]);
    expect(markdown).toContain(`\`${"x".repeat(199)}… (500 characters)\``);
  });

  it("folds a tool-heavy imported chat; toolOutput full writes the whole outputs", async () => {
    const manager = sqliteManager();
    const page = `# Results\n${"A long web page about bike lanes. ".repeat(300)}`;
    const [info] = await importConversations(
      manager,
      parseConversations(
        JSON.stringify([
          { role: "user", content: "Find bike lane news" },
          {
            role: "assistant",
            content: null,
            tool_calls: [
              {
                id: "call_1",
                type: "function",
                function: { name: "browse", arguments: '{"q":"bike lanes"}' },
              },
            ],
          },
          { role: "tool", tool_call_id: "call_1", content: page },
          { role: "assistant", content: "The lane is open." },
        ]),
      ),
    );
    const history = await manager.getSession(info!.id).getHistory();
    const folded = toMarkdown(info!, history);
    expect(folded.length).toBeLessThan(1000);
    expect(folded).toContain(
      `(${page.length.toLocaleString("en-US")} characters)\``,
    );
    const full = toMarkdown(info!, history, { toolOutput: "full" });
    expect(full).toContain(`Output:\n\n\`\`\`\n${page}\n\`\`\``);
    expect(full).toContain('```\n{\n  "q": "bike lanes"\n}\n```');
  });
});
