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
// Written by hand in the layout of a real Pi 1 session: two commands the user ran with `!`, the
// second the file's last entry.
const BASH = fixture("pi-v1-bash-execution.jsonl");

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

  it("keeps the commands the user ran (bashExecution), and the leaf on the last one", async () => {
    // Written by hand in the layout of a real Pi 1 session (fixtures/README.md): an aborted
    // empty answer, a thinking-level change, and a command as the file's last entry.
    const [parsed] = parseConversations(BASH);
    const messages = parsed!.snapshot.messages;
    expect(
      messages.map((record) => [record.message.id, record.message.role]),
    ).toEqual([
      ["v1-1", "assistant"],
      ["v1-2", "user"],
      ["v1-4", "user"],
      ["v1-5", "user"],
      ["v1-6", "assistant"],
      ["v1-8", "user"],
      ["v1-9", "assistant"],
      ["v1-10", "user"],
    ]);
    // The file ends with the second command: it is the leaf.
    expect(parsed!.activeLeafId).toBe("v1-10");
    const status = messages[2]!;
    expect(status.parentId).toBe("v1-2");
    expect(status.createdAt).toBe("2026-02-17T14:21:04.260Z");
    expect(status.message.metadata).toEqual({
      bashExecution: {
        command: "git status --short",
        exitCode: 0,
        cancelled: false,
        truncated: false,
      },
    });
    // What Pi gives the model for it: the command and its output.
    expect(textOf(status.message)).toBe(
      "Ran `git status --short`\n```\n M src/cache.ts\n M test/cache.test.ts\n?? notes.txt\n\n```",
    );
    const find = messages[7]!;
    expect(find.parentId).toBe("v1-9");
    expect(find.message.metadata).toEqual({
      bashExecution: {
        command: "find src/tiles -name '*.png'",
        exitCode: 0,
        cancelled: false,
        truncated: true,
        fullOutputPath: "/tmp/pi-bash-5e1f0c2b9d7a3846.log",
      },
    });
    expect(textOf(find.message)).toMatch(
      /^Ran `find src\/tiles -name '\*\.png'`\n```\nsrc\/tiles\/z0\/x0\.png\n/,
    );
    expect(textOf(find.message)).toMatch(
      /\[Output truncated\. Full output: \/tmp\/pi-bash-5e1f0c2b9d7a3846\.log\]$/,
    );
    // Imported, the session continues from the last command.
    const manager = sqliteManager();
    const [info] = await importConversations(manager, [parsed!]);
    const history = await manager.getSession(info!.id).getHistory();
    expect(ids(history)).toEqual(messages.map((record) => record.message.id));
  });
});
