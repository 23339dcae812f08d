// ChatGPT exports with every content type a real export uses: browsing results, quotes, code
// runs, reasoning, images and voice, tool errors; what is left out is in the import report.
import { describe, expect, it } from "vitest";
import {
  importConversations,
  parseConversations,
} from "../../src/formats/index.js";
import type { SessionMessage } from "../../src/session/index.js";
import { fixture, sqliteManager } from "./support.js";

const BROWSING = fixture("chatgpt-browsing.json");

/** Every text a message shows: text and reasoning parts, tool inputs and outputs. */
function allText(messages: readonly SessionMessage[]): string {
  return messages
    .flatMap((message) => message.parts)
    .map((part) =>
      [part.text, part.input, part.output, part.errorText]
        .filter((value) => value !== undefined)
        .map((value) =>
          typeof value === "string" ? value : JSON.stringify(value),
        )
        .join("\n"),
    )
    .join("\n");
}

describe("ChatGPT content types", () => {
  it("keeps every browsing result, quote, run and error of a real-shaped export", async () => {
    const manager = sqliteManager();
    const conversations = parseConversations(BROWSING, {
      fileName: "conversations.json",
    });
    const [info] = await importConversations(manager, conversations);
    const snapshot = await manager.exportSession(info!.id);
    const text = allText(snapshot.messages.map((record) => record.message));
    // tether_browsing_display: its text is in `result` (and a `summary`).
    expect(text).toContain("inaugurou a 14 de novembro o troço central");
    expect(text).toContain("Os dois cruzamentos devem ficar prontos");
    expect(text).toContain("Two crossings remain; due March 2026.");
    // tether_quote, sonic_webpage, execution_output, system_error, audio_transcription.
    expect(text).toContain("O troço central, entre os Restauradores");
    expect(text).toContain(
      "Bicycles may use bus lanes on Avenida da Liberdade.",
    );
    expect(text).toMatch(/\b11\b/);
    expect(text).toContain("Error: the maps tool is not available.");
    expect(text).toContain("How long would my commute take on it");
    // thoughts become reasoning.
    const reasoning = snapshot.messages
      .flatMap((record) => record.message.parts)
      .filter((part) => part.type === "reasoning");
    expect(reasoning.map((part) => part.text)).toEqual([
      "Searching\nLook for recent Lisbon city council news about the Liberdade cycle lane.",
    ]);
  });

  it("stores tool traffic as AI SDK tool parts: the call, then its output", () => {
    const [parsed] = parseConversations(BROWSING);
    const message = (id: string) =>
      parsed!.snapshot.messages.find((record) => record.message.id === id)
        ?.message;
    expect(message("b-c1")!.parts).toEqual([
      {
        type: "tool-browser",
        toolCallId: "b-c1",
        state: "output-available",
        input: 'search("Avenida da Liberdade ciclovia concluída")',
        output: expect.stringContaining("inaugurou a 14 de novembro"),
      },
    ]);
    // mclick opened two pages: both outputs, in order.
    const clicked = message("b-c2")!.parts[0]!;
    expect(clicked.state).toBe("output-available");
    expect(String(clicked.output).indexOf("O troço central")).toBeLessThan(
      String(clicked.output).indexOf("Os dois cruzamentos"),
    );
    expect(message("b-c3")!.parts[0]).toMatchObject({
      type: "tool-python",
      input: "km = 2.9\nprint(round(km / 16 * 60))",
      output: "```\n11\n```",
    });
    // A JSON call is parsed; a tool error is the call's error.
    expect(message("b-c4")!.parts[0]).toMatchObject({
      type: "tool-maps.route",
      input: { query: "Saldanha to Restauradores bike" },
      state: "output-error",
      errorText: "Error (tool_error): Error: the maps tool is not available.",
    });
    // Tool messages are no messages of their own.
    for (const id of ["b-r1", "b-r2", "b-r3", "b-r4", "b-r5"])
      expect(message(id)).toBeUndefined();
    // An output no call asked for (a web page the model was given) stays where it is.
    expect(message("b-w1")!.parts).toEqual([
      {
        type: "text",
        text: "Output of web:\nMobilidade em Lisboa — https://www.cm-lisboa.pt/mobilidade\nBicycles may use bus lanes on Avenida da Liberdade.",
      },
    ]);
  });

  it("marks an interrupted answer partial in its metadata", () => {
    const [parsed] = parseConversations(BROWSING);
    const byId = new Map(
      parsed!.snapshot.messages.map((record) => [
        record.message.id,
        record.message,
      ]),
    );
    expect(byId.get("b-a2")!.metadata).toEqual({
      partial: true,
      partialReason: "interrupted",
    });
    expect(byId.get("b-a1")!.metadata).toBeUndefined();
    const inProgress = BROWSING.replace(
      '"finish_details": {\n              "type": "interrupted"\n            }',
      '"finish_details": null',
    );
    expect(inProgress).not.toBe(BROWSING);
    const [again] = parseConversations(inProgress);
    expect(
      again!.snapshot.messages.find((record) => record.message.id === "b-a2")!
        .message.metadata,
    ).toEqual({ partial: true, partialReason: "in_progress" });
  });

  it("reports what it left out, and why", () => {
    const [parsed] = parseConversations(BROWSING);
    const skipped = parsed!.skipped!.map(({ where, what }) => [
      where.replace(/^conversation "Liberdade bike lane" /, ""),
      what,
    ]);
    expect(skipped).toEqual([
      ['node "b-ctx"', "user_editable_context"],
      ['node "b-rc"', "reasoning_recap"],
      ['node "b-u2"', "image"],
      ['node "b-u2"', "audio_asset_pointer"],
      ['node "b-x1"', "canvas_widget"],
    ]);
    expect(parsed!.skipped![2]!.reason).toContain(
      "file-service://file-7Hq2bike",
    );
  });
});
