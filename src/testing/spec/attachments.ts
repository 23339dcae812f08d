import type { SessionMessage } from "../../session/contracts/types.js";
import { encodeBase64 } from "../../session/encoding/base64.js";
import { textMessage } from "../fixtures.js";
import { prng } from "../helpers.js";
import { eachLayer, type Suite } from "../suite.js";

/**
 * Attachments (docs/behavior/storage.md#attachments): file parts with inline `data:` URLs read back
 * byte for byte through every read, whatever the backend stores in their place, and their bytes
 * are never searchable. How often the bytes are stored is checked per backend in
 * test/providers/*-attachments.int.test.ts.
 */
export function attachmentsSpec(suite: Suite): void {
  const { expect } = suite;
  suite.describe("attachments", () => {
    eachLayer(suite, (suite) => {
      suite.it(
        "reads a 3 MB image back identically through every read, in two sessions",
        async ({ open }) => {
          const first = open("a");
          const second = open("b");
          const image = imageMessage("img-a", IMAGE_URL);
          await first.appendMessage(textMessage("m1"));
          await first.appendMessage(image);
          await second.appendMessage(imageMessage("img-b", IMAGE_URL));
          const expected = JSON.stringify(image.parts);
          expect(JSON.stringify((await first.getMessage("img-a"))?.parts)).toBe(
            expected,
          );
          const history = await first.getHistory();
          expect(JSON.stringify(history[1]?.parts)).toBe(expected);
          const branches = await first.getBranches("m1");
          expect(JSON.stringify(branches[0]?.parts)).toBe(expected);
          expect(JSON.stringify((await first.getLatestLeaf())?.parts)).toBe(
            expected,
          );
          expect(
            JSON.stringify((await second.getMessage("img-b"))?.parts),
          ).toBe(JSON.stringify(imageMessage("img-b", IMAGE_URL).parts));
        },
      );

      suite.it(
        "keeps an attachment until its last reference is gone",
        async ({ open }) => {
          const first = open("a");
          const second = open("b");
          await first.appendMessage(imageMessage("one", IMAGE_URL));
          await first.appendMessage(imageMessage("two", IMAGE_URL));
          await second.appendMessage(imageMessage("three", IMAGE_URL));
          await first.deleteMessages(["one"]);
          expect((await first.getMessage("two"))?.parts[1]?.url).toBe(
            IMAGE_URL,
          );
          await first.clearMessages();
          expect((await second.getMessage("three"))?.parts[1]?.url).toBe(
            IMAGE_URL,
          );
          // Stored again after every reference was released.
          await first.appendMessage(imageMessage("four", IMAGE_URL));
          expect((await first.getMessage("four"))?.parts[1]?.url).toBe(
            IMAGE_URL,
          );
        },
      );

      suite.it(
        "follows updates that replace or drop a file part",
        async ({ open }) => {
          const session = open();
          await session.appendMessage(imageMessage("img", IMAGE_URL));
          await session.updateMessage(imageMessage("img", SMALL_URL));
          expect((await session.getMessage("img"))?.parts[1]?.url).toBe(
            SMALL_URL,
          );
          await session.updateMessage(textMessage("img", "no file now"));
          expect((await session.getMessage("img"))?.parts).toEqual([
            { type: "text", text: "no file now" },
          ]);
        },
      );

      suite.it(
        "keeps text data URLs, odd headers and http URLs exactly as written",
        async ({ open }) => {
          const session = open();
          const urls = [
            "data:text/plain;charset=utf-8,h%C3%A9llo%20w%C3%B6rld é",
            "data:,plain",
            `data:image/png;name=a.png;base64,${encodeBase64(new Uint8Array([1, 2, 3]))}`,
            "data:image/png;base64,QR==",
            "https://example.com/cat.png",
          ];
          const message: SessionMessage = {
            id: "files",
            role: "user",
            parts: urls.map((url) => ({
              type: "file",
              mediaType: "image/png",
              url,
            })),
          };
          await session.appendMessage(message);
          expect((await session.getMessage("files"))?.parts).toEqual(
            message.parts,
          );
          expect((await session.getHistory())[0]?.parts).toEqual(message.parts);
        },
      );

      suite.it(
        "never finds the bytes of an attachment by search",
        async ({ open }) => {
          const session = open();
          await session.appendMessage(imageMessage("img", IMAGE_URL));
          const base64 = IMAGE_URL.slice(IMAGE_URL.indexOf(",") + 1);
          const needle = base64.slice(1000, 1024).replace(/[^A-Za-z]/g, "");
          expect(await session.search(needle)).toEqual([]);
          expect(await session.search("picture")).toHaveLength(1);
        },
        { requires: { search: true } },
      );

      suite.it(
        "counts attachments in the stored size of a message",
        async ({ open }) => {
          const session = open();
          await session.appendMessage(imageMessage("img", IMAGE_URL));
          const stats = await session.getHistoryRowStats();
          const bytes = new TextEncoder().encode(
            JSON.stringify(imageMessage("img", IMAGE_URL)),
          ).length;
          expect(stats?.[0]?.bytes).toBe(bytes);
          const recent = await session.getRecentHistory(1_000_000_000);
          expect(recent.totalContentBytes).toBe(bytes);
          expect(recent.messages[0]?.parts[1]?.url).toBe(IMAGE_URL);
        },
        { requires: { recentHistory: true, rowStats: true } },
      );
    });

    suite.it("streams the data URL through history()", async ({ session }) => {
      const source = session("a");
      await source.appendMessage(imageMessage("img", IMAGE_URL));
      const streamed: string[] = [];
      for await (const message of source.history())
        streamed.push(String(message.parts[1]?.url));
      expect(streamed).toEqual([IMAGE_URL]);
    });

    suite.it(
      "exports the data URL in a snapshot and imports it back",
      async ({ session }) => {
        const source = session("a");
        const image = imageMessage("img", IMAGE_URL);
        await source.appendMessage(image);
        const snapshot = await source.exportSnapshot();
        expect(JSON.stringify(snapshot.messages[0]?.message.parts)).toBe(
          JSON.stringify(image.parts),
        );
        const copy = session("b");
        await copy.importSnapshot(snapshot);
        expect((await copy.getMessage("img"))?.parts[1]?.url).toBe(IMAGE_URL);
      },
      { requires: { snapshots: true } },
    );
  });
}

// --- Internal helpers ---

const IMAGE_BYTES = 3 * 1024 * 1024 + 7;

/** A 3 MB pseudo-random "PNG" as a data URL (about 4 MB of base64). */
const IMAGE_URL = (() => {
  const random = prng(20_260_101);
  const bytes = new Uint8Array(IMAGE_BYTES);
  for (let index = 0; index < bytes.length; index++)
    bytes[index] = Math.floor(random() * 256);
  return `data:image/png;base64,${encodeBase64(bytes)}`;
})();

const SMALL_URL = `data:image/png;base64,${encodeBase64(new Uint8Array([137, 80, 78, 71]))}`;

function imageMessage(id: string, url: string): SessionMessage {
  return {
    id,
    role: "user",
    parts: [
      { type: "text", text: "a picture" },
      { type: "file", mediaType: "image/png", url, filename: "image.png" },
    ],
  };
}
