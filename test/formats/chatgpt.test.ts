// ChatGPT exports with every content type a real export uses: browsing results, quotes, code
// runs, reasoning, images and voice, tool errors; what is left out is in the import report.
import { describe, expect, it } from "vitest";
import {
  importConversations,
  parseChatGptZip,
  parseConversations,
} from "../../src/formats/index.js";
import type { SessionMessage } from "../../src/session/index.js";
import { fixture, sqliteManager, textOf } from "./support.js";
import { writeZip } from "./zip-writer.js";

const BROWSING = fixture("chatgpt-browsing.json");
// Written by hand in the layout of a real export (fixtures/README.md): a browsing answer whose
// marks `metadata.citations` resolves, then an answer in the newer `content_references` layout.
const CITATIONS = fixture("chatgpt-citations.json");
const CITING = "4d7e0f93-b2a1-4c58-9e6d-0a1b2c3d4e5f";
const REFERENCING = "9b8a7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d";
const CONVERSATIONS = fixture("chatgpt-conversations.json");
/** A 1×1 PNG: the image file of the export's zip. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

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

describe("ChatGPT citations and images", () => {
  it("keeps the URL and title each citation mark points at (metadata.citations)", async () => {
    const [parsed] = parseConversations(CITATIONS);
    const citationsOf = (id: string) =>
      (
        parsed!.snapshot.messages.find((item) => item.message.id === id)!
          .message.metadata as {
          citations: Array<{ mark: string; start: number; end: number }>;
        }
      ).citations;
    const citations = citationsOf(CITING);
    expect(citations).toEqual([
      {
        mark: "【3:0†source】",
        start: 92,
        end: 104,
        url: "https://lanternfish.example.org/",
        title: "Lanternfish tile server - Project page",
      },
      {
        mark: "【3:1†source】",
        start: 191,
        end: 203,
        url: "https://lanternfish.example.org/releases/2.0",
        title: "Release 2.0 notes | Lanternfish",
      },
      {
        mark: "【3:2†source】",
        start: 203,
        end: 215,
        url: "https://docs.lanternfish.example.org/cache",
        title: "Tile caching in Lanternfish - Docs",
      },
      {
        mark: "【3:3†source】",
        start: 333,
        end: 345,
        url: "https://blog.lanternfish.example.org/2025/yearly-releases",
        title: "Lanternfish moves to a yearly release cycle - Dev blog",
      },
      {
        mark: "【3:4†source】",
        start: 345,
        end: 357,
        url: "https://labs.example.com/posts/lanternfish-cache-benchmark",
        title: "Benchmarking the Lanternfish cache - Example Labs",
      },
    ]);
    // The newer layout: each reference's `items` give the source of its `matched_text`.
    const references = citationsOf(REFERENCING);
    expect(references).toEqual([
      {
        mark: "【7†L12-L18】",
        start: 64,
        end: 75,
        url: "https://docs.lanternfish.example.org/cache",
        title: "Tile caching in Lanternfish - Docs",
      },
      {
        mark: "【9†L3-L5】",
        start: 112,
        end: 121,
        url: "https://docs.lanternfish.example.org/config#cache",
        title: "Configuration reference | Lanternfish",
      },
    ]);
    // Every mark resolves from the stored message alone: it is in the text where it says.
    const manager = sqliteManager();
    const [info] = await importConversations(manager, [parsed!]);
    for (const [id, expected] of [
      [CITING, citations],
      [REFERENCING, references],
    ] as const) {
      const stored = await manager.getSession(info!.id).getMessage(id);
      const text = textOf(stored!);
      for (const citation of expected)
        expect(text.slice(citation.start, citation.end)).toBe(citation.mark);
      expect(stored!.metadata).toEqual({ citations: expected });
    }
  });

  it("keeps each image's reference (metadata.images) when the export holds no image file", () => {
    const [trip] = parseConversations(CONVERSATIONS);
    const image = trip!.snapshot.messages.find(
      (record) => record.message.id === "u-0003",
    )!.message;
    expect(image.metadata).toEqual({
      images: [
        {
          assetPointer: "file-service://file-AbC123",
          width: 1024,
          height: 768,
          sizeBytes: 183202,
        },
      ],
    });
    expect(textOf(image)).toBe(
      "[image]\nSkip Sintra. Is this restaurant near Chiado?",
    );
  });

  it("stores the images of an export zip as attachments of their messages", async () => {
    // The browsing conversation beside the two that show an image.
    const conversations = [
      ...(JSON.parse(CITATIONS) as unknown[]),
      ...(JSON.parse(CONVERSATIONS) as unknown[]),
    ];
    const zip = writeZip([
      {
        name: "conversations.json",
        data: Buffer.from(JSON.stringify(conversations)),
      },
      { name: "file-AbC123-Chiado.png", data: PNG, store: true },
      { name: "file-Unused99-other.png", data: PNG },
    ]);
    const [cited, trip] = await parseChatGptZip(zip);
    expect(
      (
        cited!.snapshot.messages.find((record) => record.message.id === CITING)!
          .message.metadata as { citations: unknown[] }
      ).citations,
    ).toHaveLength(5);
    const dataUrl = `data:image/png;base64,${PNG.toString("base64")}`;
    const image = trip!.snapshot.messages.find(
      (record) => record.message.id === "u-0003",
    )!.message;
    expect(image.parts).toEqual([
      {
        type: "file",
        mediaType: "image/png",
        filename: "file-AbC123-Chiado.png",
        url: dataUrl,
      },
      { type: "text", text: "Skip Sintra. Is this restaurant near Chiado?" },
    ]);
    expect(image.metadata).toMatchObject({
      images: [{ fileName: "file-AbC123-Chiado.png" }],
    });
    expect(trip!.skipped!.filter((item) => item.what === "image")).toEqual([]);
    const manager = sqliteManager();
    const [info] = await importConversations(manager, [trip!]);
    const stored = await manager.getSession(info!.id).getMessage("u-0003");
    expect(stored!.parts[0]).toMatchObject({ type: "file", url: dataUrl });
  });

  it("reads the newer content_references the same way (layout of a real export, values cut)", () => {
    const text = "Multiple points of view work【446346422802141†L175-L190】.";
    const conversation = {
      title: "POV",
      mapping: {
        a: {
          id: "a",
          parent: null,
          message: {
            id: "a",
            author: { role: "assistant" },
            content: { content_type: "text", parts: [text] },
            metadata: {
              content_references: [
                {
                  alt: null,
                  attribution: "savannahgilbo.com",
                  end_idx: 53,
                  matched_text: "【446346422802141†L175-L190】",
                  start_idx: 27,
                  title:
                    "\n      \n        The Pros and Cons of Writing A Novel With Multiple Points of View\n    ",
                  type: "webpage_extended",
                  url: "https://www.savannahgilbo.com/blog/multiple-pov",
                },
                {
                  end_idx: 53,
                  invalid: true,
                  matched_text: "【812026214788406†screenshot】",
                  start_idx: 27,
                  type: "hidden",
                },
              ],
            },
          },
        },
      },
      current_node: "a",
    };
    const [parsed] = parseConversations(JSON.stringify([conversation]));
    expect(parsed!.snapshot.messages[0]!.message.metadata).toEqual({
      citations: [
        {
          mark: "【446346422802141†L175-L190】",
          start: 27,
          end: 53,
          url: "https://www.savannahgilbo.com/blog/multiple-pov",
          title:
            "The Pros and Cons of Writing A Novel With Multiple Points of View",
        },
      ],
    });
  });
});
