import { describe, expect, it } from "vitest";
import type { SessionMessage } from "../../session/contracts/types.js";
import { chat, toolResult } from "../__fixtures__/transcripts.js";
import { truncateOlderMessages } from "./truncate.js";
import { truncateToolOutput } from "../../session/messages/truncate-tool-output.js";

const longText = (id: string, length: number): SessionMessage => ({
  id,
  role: "user",
  parts: [{ type: "text", text: "t".repeat(length) }],
});
const longTool = (id: string, output: unknown): SessionMessage => ({
  id,
  role: "assistant",
  parts: [
    {
      type: "tool-fetch",
      toolCallId: `c${id}`,
      state: "output-available",
      input: { url: "x" },
      output,
    },
  ],
});

describe("truncateOlderMessages", () => {
  it("returns the input array itself when there are at most keepRecent messages", () => {
    const messages = [longText("a", 20_000), longText("b", 20_000)];
    expect(truncateOlderMessages(messages)).toBe(messages);
    expect(truncateOlderMessages(messages, { keepRecent: 2 })).toBe(messages);
  });

  it("shortens long text and tool outputs of older messages only, on copies", () => {
    const messages = [
      longText("t", 12_000),
      longTool("o", "r".repeat(2000)),
      ...chat(4),
    ];
    const snapshot = structuredClone(messages);
    const view = truncateOlderMessages(messages);
    expect(view).not.toBe(messages);
    expect(view[0]!.parts[0]!.text).toBe(
      "t".repeat(10_000) + "... [truncated 12000 chars]",
    );
    expect(view[1]!.parts[0]!.output).toBe(
      truncateToolOutput("r".repeat(2000), 500).output,
    );
    expect(view[1]!.parts[0]).toMatchObject({
      input: { url: "x" },
      state: "output-available",
    });
    view
      .slice(2)
      .forEach((message, index) => expect(message).toBe(messages[index + 2]));
    expect(messages).toEqual(snapshot);
  });

  it("keeps the identity of older messages that need no change", () => {
    const messages = [...chat(3), longText("t", 12_000), ...chat(4)];
    const view = truncateOlderMessages(messages);
    expect(view[0]).toBe(messages[0]);
    expect(view[3]).not.toBe(messages[3]);
  });

  it("never touches the last keepRecent messages", () => {
    const messages = [longText("a", 20_000), longTool("b", "r".repeat(2000))];
    expect(truncateOlderMessages(messages, { keepRecent: 1 })[1]).toBe(
      messages[1],
    );
  });

  it("takes its limits from the options, keepRecent 0 included", () => {
    const messages = [
      longText("a", 50),
      longTool("b", { data: "d".repeat(200) }),
    ];
    const view = truncateOlderMessages(messages, {
      keepRecent: 0,
      maxTextChars: 10,
      maxToolOutputChars: 100,
    });
    expect(view[0]!.parts[0]!.text).toBe("tttttttttt... [truncated 50 chars]");
    expect(
      JSON.stringify(view[1]!.parts[0]!.output).length,
    ).toBeLessThanOrEqual(100);
  });

  it("leaves tool parts without output and non-tool parts alone", () => {
    const messages: SessionMessage[] = [
      {
        id: "x",
        role: "tool",
        parts: [
          { type: "result-like", output: "r".repeat(5000) },
          { type: "reasoning", text: "r".repeat(20_000) },
        ],
      },
      ...toolResult("y", { callId: "c" }).parts.map(() =>
        longTool("y", undefined),
      ),
      ...chat(4),
    ];
    const view = truncateOlderMessages(messages);
    expect(view[0]).toBe(messages[0]);
    expect(view[1]).toBe(messages[1]);
  });
});
