import { Session } from "../../session/facade/session.js";
import type { SessionMessage } from "../../session/contracts/types.js";
import { build, conversation, ids, textMessage } from "../fixtures.js";
import {
  caught,
  caughtSync,
  messageOf,
  summarizeError,
  utf8Bytes,
} from "../helpers.js";
import { spyingProvider, withoutOptionalMembers } from "../subject.js";
import type { Suite } from "../suite.js";

const CONCURRENT_APPENDS = 50;

/** The Session API over the provider: errors, validation, fallbacks, concurrency (docs/behavior/runtime.md, docs/behavior/messages-and-tree.md). */
export function sessionSpec(rootSuite: Suite): void {
  const suite = rootSuite.withLayer("session");
  const { expect } = suite;
  suite.describe("session API", () => {
    suite.it(
      "rejects a Session.create() target that is not a store",
      async () => {
        for (const target of [null, undefined, 42, "memory.db", true]) {
          // @ts-expect-error -- not a store, on purpose
          const error = caughtSync(() => Session.create(target));
          expect({ target: String(target), ...summarizeError(error) }).toEqual({
            target: String(target),
            kind: "TypeError",
            code: "INVALID_TARGET",
            marked: true,
          });
          expect(String(messageOf(error))).toContain(
            "Session.create() requires a SqlProvider or SessionProvider",
          );
        }
      },
    );

    suite.it(
      "Session.create(provider) stores through the given provider",
      async ({ provider, session }) => {
        const created = Session.create(provider());
        await created.appendMessage(textMessage("m1"));
        expect(ids(await session().getHistory())).toEqual(["m1"]);
      },
    );

    suite.it(
      "rejects invalid messages on append with a TypeError and writes nothing",
      async ({ session }) => {
        const subject = session();
        for (const [label, message] of invalidMessages()) {
          const error = await caught(() =>
            subject.appendMessage(message as SessionMessage),
          );
          expect({ label, ...summarizeError(error) }).toEqual({
            label,
            kind: "TypeError",
            code: "INVALID_MESSAGE",
            marked: true,
          });
        }
        expect(await subject.getHistory()).toEqual([]);
        expect(await subject.getLatestLeaf()).toBeNull();
        expect(await subject.getPathLength()).toBe(0);
        expect(await subject.getMessage("bad")).toBeNull();
      },
    );

    suite.it(
      "rejects invalid messages on update and keeps the stored one",
      async ({ session }) => {
        const subject = session();
        await subject.appendMessage(textMessage("bad", "keep"));
        for (const [label, message] of invalidMessages()) {
          const error = await caught(() =>
            subject.updateMessage(message as SessionMessage),
          );
          expect({ label, ...summarizeError(error) }).toEqual({
            label,
            kind: "TypeError",
            code: "INVALID_MESSAGE",
            marked: true,
          });
        }
        expect((await subject.getMessage("bad"))?.parts).toEqual([
          { type: "text", text: "keep" },
        ]);
      },
    );

    suite.it(
      "validates a message before the duplicate-id check",
      async ({ session }) => {
        const subject = session();
        await subject.appendMessage(textMessage("m1"));
        const error = await caught(() =>
          subject.appendMessage({ id: "m1", role: "user" } as SessionMessage),
        );
        expect(summarizeError(error)).toEqual({
          kind: "TypeError",
          code: "INVALID_MESSAGE",
          marked: true,
        });
      },
    );

    suite.it(
      "rejects an overlay with an empty summary or id and stores nothing",
      async ({ session }) => {
        const subject = session();
        await build(subject, conversation(["one", "two"]));
        const calls: Array<[string, string, string]> = [
          ["", "m1", "m2"],
          ["S", "", "m2"],
          ["S", "m1", ""],
        ];
        for (const [summary, from, to] of calls) {
          const error = await caught(() =>
            subject.addCompaction(summary, from, to),
          );
          expect({ summary, from, to, ...summarizeError(error) }).toEqual({
            summary,
            from,
            to,
            kind: "TypeError",
            code: "INVALID_ARGUMENT",
            marked: true,
          });
        }
        expect(await subject.getCompactions()).toEqual([]);
      },
    );

    suite.it(
      "appendMessage() reports the one insert among concurrent appends of an id, and whether a retry matches",
      async ({ session }) => {
        const subject = session();
        await subject.appendMessage(textMessage("r"));
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, index) =>
            subject.appendMessage(
              textMessage("m", index % 2 === 0 ? "same" : `other ${index}`),
              "r",
            ),
          ),
        );
        expect(results.filter((result) => result.inserted)).toHaveLength(1);
        const stored = (await subject.getMessage("m"))!;
        for (const result of results) {
          expect(result.message.id).toBe("m");
          expect(result.message.parts).toEqual(stored.parts);
        }
        expect(ids(await subject.getBranches("r"))).toEqual(["m"]);

        const retry = await subject.appendMessage(
          { ...stored, createdAt: undefined },
          "r",
        );
        expect([retry.inserted, retry.matchesStored]).toEqual([false, true]);
        const otherParent = await subject.appendMessage(
          { ...stored, createdAt: undefined },
          null,
        );
        expect([otherParent.inserted, otherParent.matchesStored]).toEqual([
          false,
          false,
        ]);
        const otherBody = await subject.appendMessage(
          textMessage("m", "changed"),
        );
        expect([otherBody.inserted, otherBody.matchesStored]).toEqual([
          false,
          false,
        ]);
        expect(otherBody.message.parts).toEqual(stored.parts);
        const fresh = await subject.appendMessage(textMessage("n"));
        expect([fresh.inserted, fresh.matchesStored, fresh.message.id]).toEqual(
          [true, true, "n"],
        );
      },
    );

    suite.it(
      "countMessages() asks the provider's own count, never its export (spying provider)",
      async ({ provider }) => {
        const base = provider();
        const spy = spyingProvider(base);
        const subject = new Session(spy.provider);
        await build(subject, conversation(["one", "two", "three"]));
        spy.calls.length = 0;
        if (!base.countMessages) {
          // Without a count the Session counts the export, which is all it can do.
          if (base.exportMessages)
            expect(await subject.countMessages()).toBe(3);
          return;
        }
        expect(await subject.countMessages()).toBe(3);
        expect(spy.calls).toContain("countMessages");
        expect(spy.calls.includes("exportMessages")).toBe(false);
      },
    );

    suite.it(
      "throws when searching a provider without searchMessages",
      async ({ provider, session }) => {
        const subject = session("a", withoutOptionalMembers(provider()));
        await subject.appendMessage(textMessage("m1", "hello"));
        const error = await caught(() => subject.search("hello"));
        expect(summarizeError(error)).toEqual({
          kind: "Error",
          code: "NOT_SUPPORTED",
          marked: true,
        });
        expect(messageOf(error)).toBe(
          "Session provider does not support search",
        );
      },
    );

    suite.it(
      "throws when removing a compaction on a provider without deleteCompaction",
      async ({ provider, session }) => {
        const subject = session("a", withoutOptionalMembers(provider()));
        await build(subject, conversation(["one", "two"]));
        const overlay = await subject.addCompaction("S", "m1", "m2");
        const error = await caught(() => subject.removeCompaction(overlay.id));
        expect(summarizeError(error)).toEqual({
          kind: "Error",
          code: "NOT_SUPPORTED",
          marked: true,
        });
        expect(messageOf(error)).toBe(
          "Session provider does not support removing compactions",
        );
      },
    );

    suite.it(
      "returns null row stats when the provider cannot tell",
      async ({ provider, session }) => {
        const subject = session("a", withoutOptionalMembers(provider()));
        await build(subject, conversation(["one", "two"]));
        expect(await subject.getHistoryRowStats()).toBeNull();
      },
    );

    suite.it(
      "falls back to the full history when the provider has no getRecentHistory",
      async ({ provider, session }) => {
        const subject = session("a", withoutOptionalMembers(provider()));
        const fixture = conversation(["привет", "金曜日", "🎉", "plain"]);
        await build(subject, fixture);
        const result = await quietly(() => subject.getRecentHistory(1, 1));
        expect(ids(result.messages)).toEqual(fixture.ids);
        expect(result.truncated).toBe(false);
        expect(result.totalContentBytes).toBe(
          fixture.steps.reduce(
            (sum, step) => sum + utf8Bytes(JSON.stringify(step.message)),
            0,
          ),
        );
      },
    );

    suite.it(
      "revives createdAt to a Date on every read",
      async ({ session }) => {
        const subject = session();
        const createdAt = new Date("2024-05-06T07:08:09.010Z");
        await subject.appendMessage({ ...textMessage("m1"), createdAt });
        await subject.appendMessage({
          ...textMessage("m2"),
          // @ts-expect-error -- a string createdAt, as JavaScript callers pass it
          createdAt: "2024-05-06T07:08:10.000Z",
        });
        const reads: Array<[string, SessionMessage | null | undefined]> = [
          ["getMessage", await subject.getMessage("m1")],
          ["getHistory", (await subject.getHistory())[0]],
          ["getBranches", (await subject.getBranches("m1"))[0]],
          ["getLatestLeaf", await subject.getLatestLeaf()],
        ];
        for (const [read, message] of reads) {
          const value: unknown = message?.createdAt;
          expect({ read, isDate: value instanceof Date }).toEqual({
            read,
            isDate: true,
          });
        }
        expect((await subject.getMessage("m1"))?.createdAt?.toISOString()).toBe(
          createdAt.toISOString(),
        );
        expect((await subject.getMessage("m2"))?.createdAt?.toISOString()).toBe(
          "2024-05-06T07:08:10.000Z",
        );
      },
    );

    suite.it(
      "keeps a createdAt that is not a valid date as it was stored",
      async ({ session }) => {
        const subject = session();
        await subject.appendMessage({
          ...textMessage("m1"),
          // @ts-expect-error -- not a date, on purpose
          createdAt: "not a date",
        });
        const value: unknown = (await subject.getMessage("m1"))?.createdAt;
        expect(value).toBe("not a date");
      },
    );

    suite.it(
      `chains ${CONCURRENT_APPENDS} concurrent appends without a parent`,
      async ({ session }) => {
        const subject = session();
        await Promise.all(
          Array.from({ length: CONCURRENT_APPENDS }, (_, index) =>
            subject.appendMessage(textMessage(`m${index + 1}`)),
          ),
        );
        await expectOneChain(suite, subject, CONCURRENT_APPENDS);
      },
    );

    suite.it(
      "shares the append lock between two Sessions over one store and id",
      async ({ session }) => {
        const first = session("a");
        const second = session("a");
        await Promise.all(
          Array.from({ length: CONCURRENT_APPENDS }, (_, index) =>
            (index % 2 === 0 ? first : second).appendMessage(
              textMessage(`m${index + 1}`),
            ),
          ),
        );
        await expectOneChain(suite, first, CONCURRENT_APPENDS);
      },
    );

    suite.it(
      "keeps concurrent appends to different sessions apart",
      async ({ session }) => {
        const a = session("a");
        const b = session("b");
        await Promise.all(
          Array.from({ length: 40 }, (_, index) =>
            (index % 2 === 0 ? a : b).appendMessage(textMessage(`m${index}`)),
          ),
        );
        await expectOneChain(suite, a, 20);
        await expectOneChain(suite, b, 20);
      },
    );

    suite.withLayer("provider").it(
      `chains ${CONCURRENT_APPENDS} concurrent raw provider appends without a parent`,
      async ({ open }) => {
        const subject = open();
        await Promise.all(
          Array.from({ length: CONCURRENT_APPENDS }, (_, index) =>
            subject.appendMessage(textMessage(`m${index + 1}`)),
          ),
        );
        await expectOneChain(suite, subject, CONCURRENT_APPENDS);
      },
      { requires: { atomicAppends: true } },
    );
  });
}

// --- Internal helpers ---

/** Messages docs/behavior/messages-and-tree.md rejects: bad id, role or parts, or not representable as JSON. */
function invalidMessages(): Array<[label: string, message: unknown]> {
  const cyclic: Record<string, unknown> = {
    id: "bad",
    role: "user",
    parts: [],
  };
  cyclic.self = cyclic;
  return [
    ["null", null],
    ["undefined", undefined],
    ["a string", "hello"],
    ["an array", []],
    ["no id", { role: "user", parts: [] }],
    ["empty id", { id: "", role: "user", parts: [] }],
    ["numeric id", { id: 7, role: "user", parts: [] }],
    ["no role", { id: "bad", parts: [] }],
    ["numeric role", { id: "bad", role: 1, parts: [] }],
    ["no parts", { id: "bad", role: "user" }],
    ["string parts", { id: "bad", role: "user", parts: "hello" }],
    ["object parts", { id: "bad", role: "user", parts: { type: "text" } }],
    ["BigInt", { id: "bad", role: "user", parts: [], metadata: { n: 10n } }],
    ["cycle", cyclic],
  ];
}

interface ChainReader {
  getHistory(): Promise<SessionMessage[]>;
  getPathLength(): Promise<number>;
  getBranches(id: string): Promise<SessionMessage[]>;
}

/** Asserts that the session holds exactly one root → leaf chain of `length` messages. */
async function expectOneChain(
  suite: Suite,
  session: ChainReader,
  length: number,
): Promise<void> {
  const { expect } = suite;
  const history = await session.getHistory();
  expect(history).toHaveLength(length);
  expect(await session.getPathLength()).toBe(length);
  for (const message of history.slice(0, -1)) {
    expect((await session.getBranches(message.id)).length).toBe(1);
  }
}

/** Runs `fn` with `console.warn` silenced (the fallback warns once by design). */
async function quietly<T>(fn: () => Promise<T>): Promise<T> {
  const warn = console.warn;
  console.warn = () => undefined;
  try {
    return await fn();
  } finally {
    console.warn = warn;
  }
}
