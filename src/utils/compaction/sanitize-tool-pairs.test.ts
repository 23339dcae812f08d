import { describe, expect, it } from "vitest";
import type { SessionMessage } from "../../session/contracts/types.js";
import {
  aiSdkToolTurn,
  toolCall,
  toolResult,
  user,
} from "../__fixtures__/transcripts.js";
import {
  MISSING_TOOL_RESULT_OUTPUT,
  sanitizeToolPairs,
} from "./sanitize-tool-pairs.js";

describe("sanitizeToolPairs", () => {
  it("leaves consistent transcripts alone, message for message", () => {
    const messages = [
      user("u0"),
      toolCall("a1", { callId: "c1" }),
      toolResult("r2", { callId: "c1" }),
      aiSdkToolTurn("a3", "c2"),
    ];
    const sanitized = sanitizeToolPairs(messages);
    expect(sanitized).not.toBe(messages);
    sanitized.forEach((message, index) =>
      expect(message).toBe(messages[index]),
    );
  });

  it("removes results whose call is gone and drops messages left empty", () => {
    const messages = [
      toolResult("r0", { callId: "gone" }),
      {
        id: "r1",
        role: "tool",
        parts: [
          { type: "text", text: "note" },
          ...toolResult("x", { callId: "gone2" }).parts,
        ],
      },
      user("u2"),
    ];
    expect(sanitizeToolPairs(messages)).toEqual([
      { id: "r1", role: "tool", parts: [{ type: "text", text: "note" }] },
      user("u2"),
    ]);
  });

  it("leaves a just-approved call in the last message for the AI SDK to run; completes one earlier", () => {
    const approved = (id: string): SessionMessage => ({
      id,
      role: "assistant",
      parts: [
        {
          type: "tool-deleteFile",
          toolCallId: `call-${id}`,
          state: "approval-responded",
          input: { path: "notes.txt" },
          approval: { id: `approval-${id}`, approved: true },
        },
      ],
    });
    const last = approved("a1");
    const [, kept] = sanitizeToolPairs([user("u0"), last]);
    expect(kept).toBe(last);
    const [earlier] = sanitizeToolPairs([approved("a0"), user("u1")]);
    expect(earlier!.parts[0]).toMatchObject({
      state: "output-available",
      output: MISSING_TOOL_RESULT_OUTPUT,
    });
  });

  it("completes a call whose result is gone in place, as a valid AI SDK part", () => {
    const call = toolCall("a0", {
      callId: "c1",
      tool: "search",
      input: { q: "x" },
    });
    const sanitized = sanitizeToolPairs([call, user("u1")]);
    expect(sanitized[0]).toEqual({
      id: "a0",
      role: "assistant",
      parts: [
        {
          type: "tool-search",
          toolCallId: "c1",
          state: "output-available",
          input: { q: "x" },
          output: MISSING_TOOL_RESULT_OUTPUT,
        },
      ],
    });
    expect(MISSING_TOOL_RESULT_OUTPUT).toBe(
      "[Result from earlier conversation — see context summary above]",
    );
    expect(call.parts[0]!.state).toBe("input-available"); // the input is not mutated
  });

  it("treats errored and denied calls as answered", () => {
    const errored: SessionMessage = {
      id: "a0",
      role: "assistant",
      parts: [
        {
          type: "tool-x",
          toolCallId: "c1",
          state: "output-error",
          input: {},
          errorText: "boom",
        },
        { type: "tool-x", toolCallId: "c2", state: "output-denied", input: {} },
      ],
    };
    expect(sanitizeToolPairs([errored])[0]).toBe(errored);
  });

  it("only counts assistant messages as calls", () => {
    const userCall: SessionMessage = {
      ...toolResult("r0", { callId: "c1" }),
      role: "user",
    };
    expect(sanitizeToolPairs([userCall, user("u1")])).toEqual([user("u1")]);
  });
});
