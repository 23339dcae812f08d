import { describe, expect, it } from "vitest";
import type { SessionMessage } from "../session/index.js";
import {
  INTERRUPTED_TOOL_ERROR,
  settleInterruptedMessage,
} from "./settle-message.js";

const answer = (parts: SessionMessage["parts"]): SessionMessage => ({
  id: "a1",
  role: "assistant",
  parts,
  metadata: { model: "m" },
});

describe("settleInterruptedMessage (the abort rule)", () => {
  it("drops calls still streaming their input, errors calls without a result, closes streaming text", () => {
    const message = answer([
      { type: "step-start" },
      { type: "text", text: "Let me check.", state: "streaming" },
      {
        type: "tool-lookup",
        toolCallId: "c1",
        state: "output-available",
        input: { q: 1 },
        output: "ok",
      },
      {
        type: "tool-lookup",
        toolCallId: "c2",
        state: "input-available",
        input: { q: 2 },
      },
      {
        type: "dynamic-tool",
        toolName: "mcp_search",
        toolCallId: "c3",
        state: "input-streaming",
        input: { q: "par" },
      },
      { type: "reasoning", text: "", state: "streaming" },
      { type: "step-start" },
    ]);

    expect(settleInterruptedMessage(message)).toEqual(
      answer([
        { type: "step-start" },
        { type: "text", text: "Let me check.", state: "done" },
        {
          type: "tool-lookup",
          toolCallId: "c1",
          state: "output-available",
          input: { q: 1 },
          output: "ok",
        },
        {
          type: "tool-lookup",
          toolCallId: "c2",
          state: "output-error",
          input: { q: 2 },
          errorText: INTERRUPTED_TOOL_ERROR,
        },
      ]),
    );
    expect(message.parts).toHaveLength(7); // not mutated
  });

  it("returns null when only step markers would be left", () => {
    expect(
      settleInterruptedMessage(
        answer([
          { type: "step-start" },
          { type: "text", text: "", state: "streaming" },
          { type: "tool-x", toolCallId: "c", state: "input-streaming" },
        ]),
      ),
    ).toBeNull();
    expect(settleInterruptedMessage(answer([]))).toBeNull();
  });

  it("leaves a settled message as it is", () => {
    const message = answer([
      { type: "step-start" },
      { type: "text", text: "Done.", state: "done" },
      { type: "file", mediaType: "image/png", url: "data:," },
    ]);
    expect(settleInterruptedMessage(message)).toEqual(message);
  });
});
