import { createHash, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { SessionMessage } from "../contracts/types.js";
import {
  ATTACHMENT_URL_PREFIX,
  chunkBytes,
  extractAttachments,
  joinChunks,
  restoreAll,
  restoreAttachments,
} from "./attachments.js";
import { decodeBase64, encodeBase64 } from "../encoding/base64.js";
import { sha256Hex } from "../encoding/sha256.js";

describe("sha256Hex", () => {
  it("matches node:crypto on every length around the block boundaries and on random inputs", () => {
    for (let length = 0; length < 300; length++) {
      const bytes = randomBytes(length);
      expect(sha256Hex(bytes)).toBe(
        createHash("sha256").update(bytes).digest("hex"),
      );
    }
    for (const length of [1000, 65_537, 1_048_576, 3_000_001]) {
      const bytes = randomBytes(length);
      expect(sha256Hex(bytes)).toBe(
        createHash("sha256").update(bytes).digest("hex"),
      );
    }
  });

  it("matches WebCrypto's digest", async () => {
    for (const length of [0, 55, 56, 64, 119, 5000]) {
      const bytes = new Uint8Array(randomBytes(length));
      const digest = new Uint8Array(
        await crypto.subtle.digest("SHA-256", bytes),
      );
      expect(sha256Hex(bytes)).toBe(Buffer.from(digest).toString("hex"));
    }
  });
});

describe("base64", () => {
  it("encodes and decodes like Buffer", () => {
    for (let length = 0; length < 200; length++) {
      const bytes = randomBytes(length);
      const text = bytes.toString("base64");
      expect(encodeBase64(bytes)).toBe(text);
      expect(Buffer.from(decodeBase64(text)!).equals(bytes)).toBe(true);
    }
  });

  it("rejects text it could not write back identically", () => {
    for (const text of [
      "QQ",
      "QQ=",
      "QR==",
      "Q Q=",
      "QQ==QQ==",
      "Q===",
      "QUI&",
    ])
      expect(decodeBase64(text)).toBeNull();
  });
});

describe("extractAttachments / restoreAttachments", () => {
  const bytes = randomBytes(2_500_000);
  const dataUrl = `data:image/png;base64,${bytes.toString("base64")}`;
  const message: SessionMessage = {
    id: "m1",
    role: "user",
    parts: [
      { type: "text", text: "look" },
      { type: "file", mediaType: "image/png", url: dataUrl, filename: "a.png" },
      { type: "file", mediaType: "image/png", url: dataUrl },
      {
        type: "file",
        mediaType: "text/plain",
        url: "data:text/plain;charset=utf-8,h%C3%A9llo é",
      },
      {
        type: "file",
        mediaType: "image/png",
        url: "https://example.com/a.png",
      },
    ],
  };

  it("moves inline data out once per hash and restores the message exactly", () => {
    const { message: stored, attachments } = extractAttachments(message);
    expect(attachments.map((entry) => entry.hash)).toEqual([
      createHash("sha256").update(bytes).digest("hex"),
      createHash("sha256").update("h%C3%A9llo é").digest("hex"),
    ]);
    expect(stored.parts[1]).toEqual({
      type: "file",
      mediaType: "image/png",
      url: ATTACHMENT_URL_PREFIX + attachments[0]!.hash,
      filename: "a.png",
    });
    expect(stored.parts[3]!.url).toBe(
      `${ATTACHMENT_URL_PREFIX}${attachments[1]!.hash}#text/plain;charset=utf-8`,
    );
    expect(stored.parts[4]).toBe(message.parts[4]);
    const byHash = new Map(
      attachments.map((entry) => [entry.hash, entry.bytes]),
    );
    const restored = restoreAttachments(stored, (hash) => byHash.get(hash));
    expect(JSON.stringify(restored)).toBe(JSON.stringify(message));
    const extra = attachments.reduce((sum, entry) => sum + entry.extraBytes, 0);
    expect(Buffer.byteLength(JSON.stringify(stored)) + extra).toBe(
      Buffer.byteLength(JSON.stringify(message)),
    );
  });

  it("leaves a reference whose bytes are missing, and messages without inline data, as they are", () => {
    const { message: stored } = extractAttachments(message);
    expect(restoreAttachments(stored, () => undefined)).toBe(stored);
    const plain: SessionMessage = {
      id: "p",
      role: "user",
      parts: [{ type: "text", text: "hi" }],
    };
    expect(extractAttachments(plain).message).toBe(plain);
    const messages = [plain, null];
    expect(
      restoreAll(messages, () => {
        throw new Error("no lookup expected");
      }),
    ).toBe(messages);
  });

  it("keeps non-canonical base64 inline", () => {
    const odd: SessionMessage = {
      id: "o",
      role: "user",
      parts: [
        {
          type: "file",
          mediaType: "image/png",
          url: "data:image/png;base64,QR==",
        },
      ],
    };
    expect(extractAttachments(odd).attachments).toEqual([]);
  });

  it("chunks at 1 MiB and joins back", () => {
    const chunks = chunkBytes(bytes);
    expect(chunks.map((chunk) => chunk.length)).toEqual([
      1_048_576, 1_048_576, 402_848,
    ]);
    expect(Buffer.from(joinChunks(chunks)).equals(bytes)).toBe(true);
  });
});
