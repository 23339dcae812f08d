// Hostile input to the library (Session and SessionManager), one backend at a time: random and
// malformed messages (fast-check), huge parts, null bytes, lone surrogates, deep nesting, cyclic
// parents written as raw rows, and SQL and full-text injection strings as ids, texts and search
// queries. Each answer is a value or a typed ArborError; afterwards the storage is intact.
import fc from "fast-check";
import type { SessionMessage } from "../../../src/session/index.js";
import {
  check,
  depthOf,
  expectIntact,
  nested,
  same,
  textMessage,
  textOf,
  typed,
  writeAnchor,
  type HostileBackend,
} from "./hostile-support.js";
import { injections, unicodeEdges } from "./library-strings.js";
import { readsWhole } from "./reads-whole.js";

export { INJECTIONS } from "./library-strings.js";
export { cyclicParents } from "./reads-whole.js";

export type HostileCase = (backend: HostileBackend) => Promise<void>;

/** Every case, by name. */
export const HOSTILE_CASES: Record<string, HostileCase> = {
  "random values as messages, ids and queries (fast-check): a value or a typed error":
    randomValues,
  "random well-formed messages with any UTF-16 text round-trip or are refused":
    randomWellFormed,
  "huge parts (several MB, above the row-size limit) round-trip and stay searchable":
    hugeParts,
  "null bytes and lone surrogates in ids, texts and queries": unicodeEdges,
  "10,000-deep nesting in a part and in metadata": deepNesting,
  "SQL and full-text injection strings as ids, texts, names and queries":
    injections,
};

async function randomValues(backend: HostileBackend): Promise<void> {
  const manager = backend.manager();
  const anchor = await writeAnchor(manager);
  const { id } = await manager.create("random values");
  const session = manager.getSession(id);
  const anything = fc.anything({
    withNullPrototype: true,
    withBigInt: true,
    withDate: true,
    withTypedArray: true,
    withSparseArray: true,
    withUnicodeString: true,
    maxDepth: 4,
  });
  const messageLike = fc.oneof(
    anything,
    fc.record(
      {
        id: fc.oneof(fc.string(), anything),
        role: fc.oneof(
          fc.constantFrom("user", "assistant", "system", "tool", ""),
          anything,
        ),
        parts: fc.oneof(
          fc.array(
            fc.oneof(
              fc.record({ type: fc.constant("text"), text: anything }),
              fc.record({ type: anything, text: fc.string() }),
              anything,
            ),
            { maxLength: 3 },
          ),
          anything,
        ),
        metadata: anything,
      },
      { requiredKeys: [] },
    ),
  );
  const call = fc.oneof(
    fc.record({ op: fc.constant("append" as const), value: messageLike }),
    fc.record({
      op: fc.constant("appendWithParent" as const),
      value: anything,
    }),
    fc.record({ op: fc.constant("update" as const), value: messageLike }),
    fc.record({ op: fc.constant("delete" as const), value: anything }),
    fc.record({ op: fc.constant("get" as const), value: anything }),
    fc.record({ op: fc.constant("history" as const), value: anything }),
    fc.record({ op: fc.constant("search" as const), value: anything }),
    fc.record({ op: fc.constant("erase" as const), value: anything }),
    fc.record({ op: fc.constant("create" as const), value: anything }),
  );
  let n = 0;
  await fc.assert(
    fc.asyncProperty(call, async ({ op, value }) => {
      const what = `${op}(${safeJson(value)})`;
      const input = value as never;
      if (op === "append")
        await typed(what, () => session.appendMessage(input));
      if (op === "appendWithParent")
        await typed(what, () =>
          session.appendMessage(textMessage(`p${n++}`, "child"), input),
        );
      if (op === "update")
        await typed(what, () => session.updateMessage(input));
      if (op === "delete")
        await typed(what, () => session.deleteMessages(input));
      if (op === "get") await typed(what, () => session.getMessage(input));
      if (op === "history") await typed(what, () => session.getHistory(input));
      if (op === "search") await typed(what, () => session.search(input));
      if (op === "erase") await typed(what, () => manager.erase(input));
      if (op === "create")
        await typed(what, () => manager.create(input, input));
    }),
    { numRuns: backend.runs, endOnFailure: true },
  );
  await expectIntact(backend, anchor, "random values");
  // The session that took the random writes still reads whole.
  await readsWhole(session, "the random session");
}

async function randomWellFormed(backend: HostileBackend): Promise<void> {
  const manager = backend.manager();
  const anchor = await writeAnchor(manager);
  const { id } = await manager.create("random messages");
  const session = manager.getSession(id);
  const anyUtf16 = fc
    .array(
      fc.oneof(
        fc.integer({ min: 0, max: 0xffff }),
        fc.integer({ min: 0x20, max: 0x7e }),
      ),
      { maxLength: 40 },
    )
    .map((codes) => String.fromCharCode(...codes));
  let counter = 0;
  let stored = 0;
  await fc.assert(
    fc.asyncProperty(
      anyUtf16,
      anyUtf16,
      fc.constantFrom("user", "assistant", "system"),
      async (idPart, text, role) => {
        const messageId = `${counter++}:${idPart}`;
        const message: SessionMessage = {
          id: messageId,
          role: role,
          parts: [{ type: "text", text }],
        };
        const what = `append ${safeJson(message)}`;
        const written = await typed(what, () => session.appendMessage(message));
        if (!written.ok) return;
        stored++;
        const read = await session.getMessage(messageId);
        same(textOf(read), text, `text read back after ${what}`);
        same(read?.id, messageId, `id read back after ${what}`);
        await typed(`search ${safeJson(text)}`, () => session.search(text));
      },
    ),
    { numRuns: backend.runs, endOnFailure: true },
  );
  // Any text is stored; only ids a backend cannot keep exactly may be refused.
  check(stored >= backend.runs / 2, `most messages are stored (${stored})`);
  await expectIntact(backend, anchor, "random well-formed messages");
  await readsWhole(session, "the random session");
}

async function hugeParts(backend: HostileBackend): Promise<void> {
  // The word comes first: only the start of a huge text is indexed (docs/behavior/search.md).
  const big = (mb: number, word: string) =>
    `${word} ${"lorem ipsum dolor sit amet ".repeat(Math.ceil((mb * 1024 * 1024) / 27)).slice(0, mb * 1024 * 1024)}`;
  // With the default row-size limit a 5 MB message is micro-compacted under 1.8 MB (overlays.md).
  const limited = backend.manager();
  const anchor = await writeAnchor(limited);
  const small = limited.getSession((await limited.create("limited")).id);
  await small.appendMessage(textMessage("huge-0", big(5, "zephyrzero")));
  const kept = JSON.stringify(await small.getMessage("huge-0"));
  check(
    new TextEncoder().encode(kept).length <= 1_800_000,
    `the default limit keeps a 5 MB message under 1.8 MB (got ${kept.length})`,
  );
  // Without a limit it is stored whole, over continuation rows.
  const manager = backend.manager().withRowSizeLimit(false);
  const { id } = await manager.create("huge");
  const session = manager.getSession(id);
  const one = big(5, "zephyrfive");
  await session.appendMessage(textMessage("huge-1", one));
  const three: SessionMessage = {
    id: "huge-2",
    role: "assistant",
    parts: [
      { type: "text", text: big(2, "quokkaone") },
      { type: "text", text: big(2, "quokkatwo") },
      { type: "text", text: big(2, "quokkathree") },
    ],
  };
  await session.appendMessage(three);
  same(
    textOf(await session.getMessage("huge-1"))?.length,
    one.length,
    "5 MB part",
  );
  same(
    (await session.getMessage("huge-2"))?.parts.map(
      (part) => String(part.text).length,
    ),
    three.parts.map((part) => String(part.text).length),
    "three 2 MB parts",
  );
  same(
    (await session.getHistory()).map((entry) => entry.id),
    ["huge-1", "huge-2"],
    "history",
  );
  same(
    (await session.search("quokkaone")).map((hit) => hit.id),
    ["huge-2"],
    "search in a huge part",
  );
  same(
    (await session.search("zephyrfive")).map((hit) => hit.id),
    ["huge-1"],
    "search in a 5 MB part",
  );
  // Shrinking a huge message and deleting one leaves no continuation row behind.
  await session.updateMessage(textMessage("huge-1", "small now"));
  same(textOf(await session.getMessage("huge-1")), "small now", "shrunk");
  await session.deleteMessages(["huge-2"]);
  same(await session.search("quokkaone"), [], "deleted huge message");
  await expectIntact(backend, anchor, "huge parts");
}

async function deepNesting(backend: HostileBackend): Promise<void> {
  const manager = backend.manager();
  const anchor = await writeAnchor(manager);
  const { id } = await manager.create("deep");
  const session = manager.getSession(id);
  const deep = nested(10_000);
  const message = {
    id: "deep-1",
    role: "assistant",
    parts: [
      { type: "text", text: "a deep one" },
      { type: "data-deep", data: deep },
    ],
    metadata: deep,
  } as unknown as SessionMessage;
  const written = await typed("a 10,000-deep message", () =>
    session.appendMessage(message),
  );
  if (written.ok) {
    const read = await session.getMessage("deep-1");
    same(
      depthOf((read?.parts[1] as { data?: unknown } | undefined)?.data),
      10_000,
      "the deep part reads back whole",
    );
    same((await session.search("deep")).length, 1, "search");
    await typed("export the deep session", () => manager.exportSession(id));
  }
  await typed("deep metadata on a session", () =>
    manager.create("deep meta", { metadata: deep as never }),
  );
  await typed("a deep value as a search query", () =>
    session.search(deep as never),
  );
  await readsWhole(session, "deep nesting");
  await expectIntact(backend, anchor, "deep nesting");
}

function safeJson(value: unknown): string {
  try {
    return (
      JSON.stringify(value, (_, v: unknown) =>
        typeof v === "bigint" ? `${v}n` : v,
      ) ?? String(value)
    ).slice(0, 200);
  } catch {
    return "<unprintable>";
  }
}
