// ChatGPT exports read as streams: the JSON array one conversation at a time, from chunks cut
// anywhere, and the zip as ChatGPT's data export downloads it (deflated by node:zlib here).
import { describe, expect, it } from "vitest";
import {
  bytesSource,
  isZip,
  parseChatGpt,
  parseChatGptZip,
  streamChatGpt,
  streamChatGptZip,
  type ParsedConversation,
} from "../../src/formats/index.js";
import { fixture } from "./support.js";
import { writeZip } from "./zip-writer.js";

const EXPORTS = [
  fixture("chatgpt-conversations.json"),
  fixture("chatgpt-browsing.json"),
];

async function* chunksOf(text: string, size: number) {
  for (let at = 0; at < text.length; at += size)
    yield text.slice(at, at + size);
}

async function collect(
  conversations: AsyncIterable<ParsedConversation>,
): Promise<ParsedConversation[]> {
  const list: ParsedConversation[] = [];
  for await (const conversation of conversations) list.push(conversation);
  return list;
}

describe("streamChatGpt", () => {
  it.each([1, 7, 4096])(
    "reads chunks of %i characters as parseChatGpt reads the whole text",
    async (size) => {
      for (const text of EXPORTS)
        expect(await collect(streamChatGpt(chunksOf(text, size)))).toEqual(
          parseChatGpt(text),
        );
    },
  );

  it("names what is wrong with a broken stream", async () => {
    const text = EXPORTS[0]!;
    await expect(
      collect(streamChatGpt(chunksOf(text.slice(0, 2000), 100))),
    ).rejects.toThrow(/ends inside the array/);
    await expect(collect(streamChatGpt(chunksOf("[1]", 1)))).rejects.toThrow(
      /^line 1: expected a conversation object in the array$/,
    );
    await expect(
      collect(streamChatGpt(chunksOf('[\n{"title": "x", }]', 3))),
    ).rejects.toThrow(/^line 2: invalid JSON in conversation 1/);
    await expect(collect(streamChatGpt(chunksOf("  \n", 1)))).rejects.toThrow(
      /^the file is empty$/,
    );
  });
});

describe("the export zip", () => {
  const conversations = Buffer.from(EXPORTS[0]!, "utf8");

  it.each([
    ["deflated", false],
    ["stored", true],
  ])(
    "reads conversations.json %s, skipping the other files",
    async (_name, store) => {
      const zip = writeZip([
        { name: "user.json", data: Buffer.from('{"email":"x"}') },
        { name: "file-7Hq2bike.png", data: Buffer.alloc(3000, 7), store: true },
        { name: "conversations.json", data: conversations, store },
        { name: "chat.html", data: Buffer.from("<html></html>") },
      ]);
      expect(isZip(zip)).toBe(true);
      const parsed = await parseChatGptZip(zip);
      expect(parsed.map((item) => item.snapshot)).toEqual(
        parseChatGpt(EXPORTS[0]!).map((item) => item.snapshot),
      );
    },
  );

  it("reads a ZIP64 archive (64-bit sizes and offsets)", async () => {
    const zip = writeZip(
      [
        { name: "user.json", data: Buffer.from("{}") },
        { name: "conversations.json", data: conversations },
      ],
      { zip64: true },
    );
    const parsed = await parseChatGptZip(zip);
    expect(parsed.map((item) => item.title)).toEqual([
      "Lisbon weekend plan",
      "Regex for dates",
    ]);
  });

  it("reads it from a folder of the archive, a small chunk at a time", async () => {
    const zip = writeZip([
      { name: "export-2026-11-30/conversations.json", data: conversations },
    ]);
    let largest = 0;
    const source = bytesSource(zip);
    const watched = {
      size: source.size,
      read: async (offset: number, length: number) => {
        largest = Math.max(largest, length);
        return source.read(offset, length);
      },
    };
    const titles = (await collect(streamChatGptZip(watched))).map(
      (item) => item.title,
    );
    expect(titles).toEqual(["Lisbon weekend plan", "Regex for dates"]);
    expect(largest).toBeLessThanOrEqual(1024 * 1024);
  });

  it("says what the archive holds when conversations.json is not in it", async () => {
    const zip = writeZip([
      { name: "photos/a.png", data: Buffer.alloc(10) },
      { name: "notes.txt", data: Buffer.from("hi") },
    ]);
    await expect(parseChatGptZip(zip)).rejects.toMatchObject({
      code: "INVALID_IMPORT",
      message:
        "the zip holds no conversations.json (it has 2 file(s): photos/a.png, notes.txt)",
    });
    await expect(
      parseChatGptZip(Buffer.from("PK\u0003\u0004nope")),
    ).rejects.toThrow(
      /^not a zip archive Arbor can read: no end of central directory$/,
    );
  });
});
