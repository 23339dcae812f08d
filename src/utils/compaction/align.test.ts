import { describe, expect, it } from "vitest";
import {
  aiSdkToolTurn,
  assistant,
  chat,
  toolCall,
  toolResult,
  user,
} from "../__fixtures__/transcripts.js";
import { alignBoundaryBackward, alignBoundaryForward } from "./align.js";
import { findTailCutByTokens } from "./tail-cut.js";

// u0 a1(call c1,c2) r2(c1) r3(c2) a4 u5
const transcript = [
  user("u0"),
  toolCall("a1", { callId: "c1" }, { callId: "c2" }),
  toolResult("r2", { callId: "c1" }),
  toolResult("r3", { callId: "c2" }),
  assistant("a4"),
  user("u5"),
];

describe("alignBoundaryForward", () => {
  it("moves past every result that answers the assistant call just before the boundary", () => {
    expect(alignBoundaryForward(transcript, 2)).toBe(4);
  });

  it("leaves the boundary alone when the previous message has no tool calls", () => {
    expect(alignBoundaryForward(transcript, 1)).toBe(1);
    expect(alignBoundaryForward(transcript, 5)).toBe(5);
  });

  it("leaves out-of-range boundaries alone", () => {
    expect(alignBoundaryForward(transcript, 0)).toBe(0);
    expect(alignBoundaryForward(transcript, -1)).toBe(-1);
    expect(alignBoundaryForward(transcript, 6)).toBe(6);
  });

  it("ignores tool calls of non-assistant messages", () => {
    const messages = [
      user("u0"),
      { ...toolCall("x", { callId: "c" }), role: "user" },
      toolResult("r", { callId: "c" }),
    ];
    expect(alignBoundaryForward(messages, 2)).toBe(2);
  });
});

describe("alignBoundaryBackward", () => {
  it("moves back so a result right after its call stays in the tail with it", () => {
    expect(alignBoundaryBackward(transcript, 2)).toBe(1);
  });

  it("follows the alignment rule literally: a second result after the first one is not moved", () => {
    expect(alignBoundaryBackward(transcript, 3)).toBe(3);
  });

  it("stops at an assistant message with tool calls", () => {
    expect(alignBoundaryBackward(transcript, 1)).toBe(1);
  });

  it("leaves out-of-range boundaries alone", () => {
    expect(alignBoundaryBackward(transcript, 0)).toBe(0);
    expect(alignBoundaryBackward(transcript, 6)).toBe(6);
  });

  it("does not move for AI SDK parts, where call and result share a part", () => {
    const messages = [user("u0"), aiSdkToolTurn("a1", "c1"), user("u2")];
    expect(alignBoundaryBackward(messages, 2)).toBe(2);
  });
});

describe("findTailCutByTokens", () => {
  it("keeps the messages that fit the tail budget", () => {
    const messages = chat(10); // 4 + ceil(5 × 1.3) = 11 tokens each
    expect(findTailCutByTokens(messages, 3, 33, 2)).toBe(7);
  });

  it("always protects the last message, even over budget", () => {
    expect(findTailCutByTokens(chat(10), 3, 0, 0)).toBe(9);
  });

  it("keeps at least minTailMessages when the head allows it", () => {
    expect(findTailCutByTokens(chat(10), 3, 0, 4)).toBe(6);
    expect(findTailCutByTokens(chat(10), 8, 0, 4)).toBe(9);
  });

  it("aligns the cut backward onto a tool call", () => {
    const messages = [
      ...chat(4),
      toolCall("a4", { callId: "c" }),
      toolResult("r5", { callId: "c" }),
    ];
    expect(findTailCutByTokens(messages, 3, 0, 1)).toBe(4);
  });
});
