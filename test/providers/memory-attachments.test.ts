// Attachments in the in-memory store (docs/behavior/storage.md#attachments): bytes stored once
// per store, released with the last reference, and carried by toJSON()/fromJSON().
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { SessionMessage } from "../../src/session/contracts/types.js";
import { InMemorySessionProvider } from "../../src/backends/memory/index.js";
import { InMemorySessionRegistry } from "../../src/backends/memory/memory-registry.js";

const IMAGE_URL = `data:image/png;base64,${randomBytes(1_500_000).toString("base64")}`;

function image(id: string): SessionMessage {
  return {
    id,
    role: "user",
    parts: [{ type: "file", mediaType: "image/png", url: IMAGE_URL }],
  };
}

const attachmentCount = (provider: InMemorySessionProvider) =>
  provider.storeIdentity.attachments.size;

describe("in-memory attachments", () => {
  it("stores an image once per store and deletes it with its last reference", () => {
    const root = new InMemorySessionProvider();
    const first = root.forSession("a");
    const second = root.forSession("b");
    first.appendMessage(image("one"));
    second.appendMessage(image("two"));
    expect(attachmentCount(root)).toBe(1);
    first.clearMessages();
    expect(attachmentCount(root)).toBe(1);
    second.deleteMessages(["two"]);
    expect(attachmentCount(root)).toBe(0);
  });

  it("keeps attachments through toJSON()/fromJSON() with the data URL in the snapshot", () => {
    const provider = new InMemorySessionProvider({ sessionId: "a" });
    provider.appendMessage(image("one"));
    const snapshot = JSON.stringify(provider.toJSON());
    expect(snapshot).toContain(IMAGE_URL);
    const restored = InMemorySessionProvider.fromJSON(snapshot);
    expect(restored.getMessage("one")?.parts[0]?.url).toBe(IMAGE_URL);
    expect(attachmentCount(restored)).toBe(1);
  });

  it("deletes a session's attachments with the session (registry deleteSession)", async () => {
    const root = new InMemorySessionProvider();
    const registry = new InMemorySessionRegistry(root.storeIdentity);
    const now = new Date().toISOString();
    await registry.insert({
      id: "s1",
      name: "with image",
      parent_session_id: null,
      model: null,
      source: null,
      input_tokens: 0,
      output_tokens: 0,
      estimated_cost: 0,
      end_reason: null,
      created_at: now,
      updated_at: now,
    });
    root.forSession("s1").appendMessage(image("x"));
    expect(attachmentCount(root)).toBe(1);
    expect(await registry.deleteSession("s1", [])).toBe(true);
    expect(attachmentCount(root)).toBe(0);
  });
});
