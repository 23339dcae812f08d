// Broken files fail with INVALID_IMPORT naming the line or node, before anything is written;
// and an import that fails halfway leaves no session behind.
import { describe, expect, it } from "vitest";
import {
  importConversations,
  parseConversations,
  toArborJsonl,
  type ParsedConversation,
} from "../../src/formats/index.js";
import type { SessionManager } from "../../src/session/index.js";
import { fixture, sqliteManager } from "./support.js";

const CASES: Array<[string, RegExp]> = [
  ["bad-truncated.json.part", /^line 58: invalid JSON/],
  ["bad-line3.arbor.jsonl", /^line 3: invalid JSON/],
  [
    "bad-missing-parent.pi.jsonl",
    /^line 7: the parent "deadbeef" of "t1000001" is not in the file \(a trimmed file\? import it with lenient to attach such entries to the root\)$/,
  ],
  [
    "bad-cycle.chatgpt.json",
    /^conversation "Loop" node "n1": "n1" is its own ancestor \(a cycle\)$/,
  ],
];

describe("bad files", () => {
  it.each(CASES)(
    "%s → INVALID_IMPORT, nothing written",
    async (name, message) => {
      const manager = sqliteManager();
      await manager.create("Existing");
      const before = (await manager.list()).length;
      const attempt = async () =>
        importConversations(
          manager,
          parseConversations(fixture(name), { fileName: name }),
        );
      await expect(attempt()).rejects.toMatchObject({
        code: "INVALID_IMPORT",
        message: expect.stringMatching(message),
      });
      expect((await manager.list()).length).toBe(before);
    },
  );

  it("an unknown format, a bad message and a dangling overlay are named", () => {
    expect(() => parseConversations("hello\nworld")).toThrow(
      /^line 1: neither JSON nor JSON Lines$/,
    );
    expect(() => parseConversations('{"foo":1}')).toThrow(/unknown format/);
    expect(() => parseConversations("[]", { format: "csv" as never })).toThrow(
      /unknown format "csv"/,
    );
    const header =
      '{"type":"session","format":"arbor.jsonl","version":1,"sessionId":"s","activeLeafId":null}';
    const user =
      '{"type":"message","id":"u1","parentId":null,"createdAt":"2026-01-01T00:00:00.000Z","message":{"id":"u1","role":"tool","parts":[]}}';
    expect(() => parseConversations(`${header}\n${user}\n`)).toThrowError(
      expect.objectContaining({
        code: "INVALID_IMPORT",
        message: expect.stringMatching(
          /^line 2: Invalid message: `role` of message "u1"/,
        ),
      }),
    );
    const good = user.replace('"tool"', '"user"');
    const overlay =
      '{"type":"compaction","id":"c1","summary":"s","fromMessageId":"u1","toMessageId":"zz","createdAt":"2026-01-01T00:00:00.000Z"}';
    expect(() =>
      parseConversations(`${header}\n${good}\n\n${overlay}\n`),
    ).toThrow(/^line 4: the compaction covers "zz"/);
    // A compaction line's fields are checked before they are trusted as an overlay.
    const undated = overlay
      .replace('"zz"', '"u1"')
      .replace(',"createdAt":"2026-01-01T00:00:00.000Z"', "");
    expect(() =>
      parseConversations(`${header}\n${good}\n${undated}\n`),
    ).toThrow(/^line 3: a compaction needs an ISO-8601 `createdAt`$/);
    expect(() =>
      parseConversations(
        `${header}\n${good}\n${overlay.replace('"u1"', "7")}\n`,
      ),
    ).toThrow(/^line 3: a compaction needs the message ids/);
    expect(() => parseConversations(`${header}\n${good}\n${good}\n`)).toThrow(
      /^line 3: the id "u1" appears twice$/,
    );
    expect(() =>
      parseConversations(
        '[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"nope","content":"x"}]',
      ),
    ).toThrow(
      /^message 2: a tool result for "nope", which no earlier tool call has$/,
    );
  });

  it("with lenient, a trimmed fragment imports: orphans go under the root, with a warning", async () => {
    const manager = sqliteManager();
    const text = fixture("bad-missing-parent.pi.jsonl");
    const [parsed] = parseConversations(text, { lenient: true });
    expect(parsed!.warnings).toEqual([
      {
        where: "line 7",
        problem:
          'the parent "deadbeef" of "t1000001" is not in the file; attached to the root',
      },
    ]);
    const [info] = await importConversations(manager, [parsed!]);
    const snapshot = await manager.exportSession(info!.id);
    const roots = snapshot.messages
      .filter((record) => record.parentId === null)
      .map((record) => record.message.id);
    // t1000001 is a skipped tool result: its child a2000001 is the new root.
    expect(roots).toEqual(["u1000001", "a2000001"]);
    expect(snapshot.messages).toHaveLength(
      parseConversations(fixture("pi-session.jsonl"))[0]!.snapshot.messages
        .length,
    );
  });

  it("an empty file says it is empty, whatever the format", () => {
    for (const text of ["", "  \n\n\t\n", "\uFEFF"]) {
      expect(() => parseConversations(text)).toThrowError(
        expect.objectContaining({
          code: "INVALID_IMPORT",
          message: "the file is empty",
        }),
      );
      expect(() => parseConversations(text, { format: "chatgpt" })).toThrow(
        /^the file is empty$/,
      );
    }
    const [withMark] = parseConversations(
      '\uFEFF[{"role":"user","content":"hi"}]',
    );
    expect(withMark!.format).toBe("openai");
  });

  it("a failure in the second conversation deletes the first one", async () => {
    const manager = sqliteManager();
    const taken = await manager.create("Taken");
    const conversation = (sessionId: string): ParsedConversation =>
      parseConversations(
        toArborJsonl({
          format: "arbor.session",
          version: 1,
          sessionId,
          exportedAt: "2026-11-01T00:00:00.000Z",
          messages: [
            {
              message: {
                id: "m1",
                role: "user",
                parts: [{ type: "text", text: "hi" }],
              },
              parentId: null,
              createdAt: "2026-11-01T00:00:00.000Z",
            },
          ],
          compactions: [],
        }),
      )[0]!;
    const progress: Array<[number, number]> = [];
    await expect(
      importConversations(
        manager,
        [conversation("fresh-id"), conversation(taken.id)],
        {
          keepIds: true,
          onProgress: (done, total) => progress.push([done, total]),
        },
      ),
    ).rejects.toMatchObject({ code: "SESSION_EXISTS" });
    expect(await names(manager)).toEqual(["Taken"]);
    expect(await manager.get("fresh-id")).toBeNull();
    expect(progress).toEqual([
      [0, 2],
      [1, 2],
    ]);
  });
});

async function names(manager: SessionManager): Promise<string[]> {
  return (await manager.list()).map((info) => info.name);
}
