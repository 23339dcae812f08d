import { describe, expect, it, vi } from "vitest";
import type { SessionMessage } from "../contracts/types.js";
import { enforceRowSizeLimit, ROW_MAX_BYTES } from "./row-size-limit.js";
import { truncateToolOutput } from "./truncate-tool-output.js";

const bytes = (message: SessionMessage) =>
  new TextEncoder().encode(JSON.stringify(message)).length;
const toolPart = (
  toolCallId: string,
  output: unknown,
  state = "output-available",
) => ({
  type: "tool-fetch",
  toolCallId,
  state,
  input: { url: "https://example.com" },
  output,
});
const textNote = (text: string) =>
  `[Text truncated for storage (${text.length} chars). First 500 chars: ${text.slice(0, 500)}...]`;

describe("enforceRowSizeLimit", () => {
  it("is 1,800,000 bytes by default", () => {
    expect(ROW_MAX_BYTES).toBe(1_800_000);
  });

  it("returns a message within the limit unchanged, by identity", () => {
    const warn = vi.fn();
    const message: SessionMessage = {
      id: "m",
      role: "user",
      parts: [{ type: "text", text: "hi" }],
    };
    expect(enforceRowSizeLimit(message, { warn })).toBe(message);
    expect(warn).not.toHaveBeenCalled();
  });

  it("shortens finished tool outputs of an assistant message with a note to re-run the tool", () => {
    const warn = vi.fn();
    const output = "o".repeat(5000);
    const message: SessionMessage = {
      id: "a",
      role: "assistant",
      parts: [
        { type: "text", text: "Here." },
        toolPart("c1", output),
        toolPart("c2", "short"),
      ],
      metadata: { model: "m1" },
    };
    const result = enforceRowSizeLimit(message, { maxBytes: 3000, warn });
    expect(result.parts[1]!.output).toBe(
      `${"o".repeat(1000)}\n[Output truncated for storage: 5000 chars. Re-run the tool to get the full result.]`,
    );
    expect(result.parts[2]).toBe(message.parts[2]);
    expect(result.parts[0]).toBe(message.parts[0]);
    expect(result.metadata).toEqual({
      model: "m1",
      compactedToolOutputs: ["c1"],
    });
    expect(message.parts[1]!.output).toBe(output); // the input is not mutated
    expect(bytes(result)).toBeLessThanOrEqual(3000);
    expect(warn).toHaveBeenCalledOnce();
  });

  it("keeps the shape of object outputs", () => {
    const output = {
      rows: Array.from({ length: 200 }, (_, i) => ({
        id: i,
        name: `row ${i}`,
      })),
    };
    const message: SessionMessage = {
      id: "a",
      role: "assistant",
      parts: [toolPart("c1", output)],
    };
    const result = enforceRowSizeLimit(message, {
      maxBytes: 2000,
      warn: () => {},
    });
    expect(result.parts[0]!.output).toEqual(
      truncateToolOutput(output, 1000).output,
    );
    expect(result.metadata).toEqual({ compactedToolOutputs: ["c1"] });
  });

  it("leaves unfinished calls and parts without a call id alone", () => {
    const message: SessionMessage = {
      id: "a",
      role: "assistant",
      parts: [
        toolPart("c1", "o".repeat(5000), "input-available"),
        { type: "data-x", output: "o".repeat(5000), state: "output-available" },
      ],
    };
    const warn = vi.fn();
    expect(enforceRowSizeLimit(message, { maxBytes: 3000, warn })).toBe(
      message,
    );
    expect(warn.mock.calls[0]![0]).toMatch(/nothing that can be shortened/);
  });

  it("shortens long text parts of other roles in order, stopping once the message fits", () => {
    const texts = [
      "a".repeat(3000),
      "short",
      "b".repeat(3000),
      "c".repeat(3000),
    ];
    const message: SessionMessage = {
      id: "u",
      role: "user",
      parts: texts.map((text) => ({ type: "text", text })),
    };
    const result = enforceRowSizeLimit(message, {
      maxBytes: 5000,
      warn: () => {},
    });
    expect(result.parts.map((part) => part.text)).toEqual([
      textNote(texts[0]!),
      "short",
      textNote(texts[2]!),
      texts[3],
    ]);
    expect(result.metadata).toEqual({ compactedTextParts: [0, 2] });
    expect(bytes(result)).toBeLessThanOrEqual(5000);
  });

  it("goes on to text parts when shortening tool outputs is not enough", () => {
    const message: SessionMessage = {
      id: "a",
      role: "assistant",
      parts: [
        toolPart("c1", "o".repeat(5000)),
        { type: "text", text: "t".repeat(5000) },
      ],
    };
    const result = enforceRowSizeLimit(message, {
      maxBytes: 3000,
      warn: () => {},
    });
    expect(result.metadata).toEqual({
      compactedToolOutputs: ["c1"],
      compactedTextParts: [1],
    });
    expect(result.parts[1]!.text).toBe(textNote("t".repeat(5000)));
  });

  it("skips text compaction when the tool outputs were enough", () => {
    const message: SessionMessage = {
      id: "a",
      role: "assistant",
      parts: [
        toolPart("c1", "o".repeat(50_000)),
        { type: "text", text: "t".repeat(2000) },
      ],
    };
    const result = enforceRowSizeLimit(message, {
      maxBytes: 5000,
      warn: () => {},
    });
    expect(result.metadata).toEqual({ compactedToolOutputs: ["c1"] });
    expect(result.parts[1]).toBe(message.parts[1]);
  });

  it("measures UTF-8 bytes, not characters, against the default limit", () => {
    const text = "é".repeat(1_000_000); // 1,000,000 characters, 2,000,000 bytes
    const message: SessionMessage = {
      id: "u",
      role: "user",
      parts: [{ type: "text", text }],
    };
    const result = enforceRowSizeLimit(message, { warn: () => {} });
    expect(result.parts[0]!.text).toBe(textNote(text));
    expect(bytes(result)).toBeLessThan(ROW_MAX_BYTES);
  });

  it("adds to the record of an earlier compaction", () => {
    const message: SessionMessage = {
      id: "a",
      role: "assistant",
      parts: [toolPart("c2", "o".repeat(5000))],
      metadata: { compactedToolOutputs: ["c1"] },
    };
    expect(
      enforceRowSizeLimit(message, { maxBytes: 2000, warn: () => {} }).metadata,
    ).toEqual({ compactedToolOutputs: ["c1", "c2"] });
  });

  it("warns by default through console.warn", () => {
    const spy = vi.spyOn(console, "warn").mockImplementation(() => {});
    enforceRowSizeLimit(
      {
        id: "u",
        role: "user",
        parts: [{ type: "text", text: "x".repeat(3000) }],
      },
      { maxBytes: 1000 },
    );
    expect(spy).toHaveBeenCalledOnce();
    spy.mockRestore();
  });
});
