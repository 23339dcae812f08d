// Pi sessions of version 1 (a linear list, no ids), as Pi wrote them before its tree format:
// migrated as Pi migrates them on load, with their compactions as overlays. The fixture is a
// trimmed copy of a real session from Pi's own repository (see fixtures/README.md).
import { describe, expect, it } from "vitest";
import {
  importConversations,
  parseConversations,
} from "../../src/formats/index.js";
import { fixture, ids, sqliteManager, textOf } from "./support.js";

const V1 = fixture("pi-v1-session.jsonl");

describe("Pi version 1 sessions", () => {
  it("are migrated to a chain with stable ids, tool results folded", () => {
    const [parsed] = parseConversations(V1, {
      fileName: "2025-12-09T00-53-29-825Z_ffae836b.jsonl",
    });
    expect(parsed!.format).toBe("pi");
    expect(parsed!.snapshot.sessionId).toBe(
      "ffae836b-9420-4060-ac13-7745215f90ff",
    );
    const messages = parsed!.snapshot.messages;
    // Tool results, the thinking-level change and the aborted empty answer are not messages.
    expect(messages.map((record) => record.message.id)).toEqual([
      "v1-1",
      "v1-2",
      "v1-5",
      "v1-7",
      "v1-9",
      "v1-10",
      "v1-11",
      "v1-13",
      "v1-15",
      "v1-17",
    ]);
    expect(messages.map((record) => record.parentId)).toEqual([
      null,
      "v1-1",
      "v1-2",
      "v1-5",
      "v1-7",
      "v1-9",
      "v1-10",
      "v1-11",
      "v1-13",
      "v1-15",
    ]);
    const read = messages[1]!.message.parts;
    expect(read.map((part) => [part.type, part.state])).toEqual([
      ["tool-read", "output-available"],
      ["tool-read", "output-available"],
    ]);
    // The same file parses to the same ids again.
    expect(parseConversations(V1)[0]!.snapshot.messages).toEqual(messages);
  });

  it("turns the compaction into an overlay over what came before its first kept entry", async () => {
    const manager = sqliteManager();
    const [info] = await importConversations(manager, parseConversations(V1));
    const session = manager.getSession(info!.id);
    const [overlay] = await session.getCompactions();
    expect(overlay).toMatchObject({
      fromMessageId: "v1-1",
      toMessageId: "v1-9",
      meta: { summarizer: "pi", tokensBefore: 175004 },
    });
    const history = await session.getHistory();
    expect(textOf(history[0])).toContain("# Context Checkpoint");
    expect(ids(history).slice(1)).toEqual([
      "v1-10",
      "v1-11",
      "v1-13",
      "v1-15",
      "v1-17",
    ]);
  });
});
