import { hasCapability } from "../../session/contracts/provider-capabilities.js";
import type { SessionMessage } from "../../session/contracts/types.js";
import type { Session } from "../../session/facade/session.js";
import { textMessage } from "../fixtures.js";
import { caught, caughtSync, summarizeError, utf8Bytes } from "../helpers.js";
import type { Suite } from "../suite.js";

/**
 * Size of the large message: over every row limit (Durable Object SQLite: 2 MB), so a SQL-tag
 * store splits it over many continuation rows of 1.5 MiB (docs/behavior/storage.md).
 */
const LARGE_BYTES = 20_000_000;

/**
 * Size of the messages of the other cases: still over 2 MB, so a SQL-tag store splits them, but
 * small enough to keep the suite quick on every backend.
 */
const SPLIT_BYTES = 3_000_000;

/** A word that occurs once, at the start of the large text, where every backend indexes it. */
const NEEDLE = "zebracornium";

/**
 * Messages without a size ceiling (docs/behavior/storage.md): with `withRowSizeLimit(false)` a
 * message of any size is stored whole and read back identical by every read; the default limit
 * still shortens it.
 */
export function largeMessagesSpec(suite: Suite): void {
  const { expect } = suite;
  const unlimited = (session: Session) => session.withRowSizeLimit(false);

  suite.describe("large messages", () => {
    suite.it(
      "stores a 20 MB message whole and reads it back identical everywhere",
      async ({ session, provider }) => {
        const store = unlimited(session());
        const big = largeMessage("big", "first", LARGE_BYTES);
        await store.appendMessage(textMessage("root"));
        await store.appendMessage(big);
        expectSame(await store.getMessage("big"), big);
        expectSame(await store.getLatestLeaf(), big);
        expectSame((await store.getBranches("root"))[0], big);
        await store.appendMessage(textMessage("after"));
        const history = await store.getHistory();
        expect(history.map((message) => message.id)).toEqual([
          "root",
          "big",
          "after",
        ]);
        expectSame(history[1], big);
        const recent = await store.getRecentHistory(LARGE_BYTES * 2);
        expectSame(recent.messages[1], big);
        // A stored size counts the whole message, continuation rows included.
        if (hasCapability(provider(), "rowStats")) {
          const stats = await store.getHistoryRowStats();
          expect(stats![1]!.bytes).toBe(utf8Bytes(JSON.stringify(big)));
        }
        expect(recent.totalContentBytes).toBeGreaterThan(LARGE_BYTES);
      },
    );

    suite.it(
      "exports a large message whole in a snapshot",
      async ({ session, provider }) => {
        const store = unlimited(session());
        const big = largeMessage("big", "first", SPLIT_BYTES);
        await store.appendMessage(big);
        // Without exportMessages() a provider cannot export (docs/behavior/manager.md#snapshots): it says so.
        if (typeof provider().exportMessages !== "function") {
          const error = await caught(() => store.exportSnapshot());
          expect(summarizeError(error).code).toBe("NOT_SUPPORTED");
          return;
        }
        const snapshot = await store.exportSnapshot();
        expectSame(snapshot.messages[0]?.message, big);
      },
    );

    suite.it(
      "updates a large message to a small one and back",
      async ({ session }) => {
        const store = unlimited(session());
        await store.appendMessage(largeMessage("m", "first", SPLIT_BYTES));
        const small = textMessage("m", "now small");
        await store.updateMessage(small);
        expectSame(await store.getMessage("m"), small);
        expectSame((await store.getHistory())[0], small);
        const again = largeMessage("m", "second", SPLIT_BYTES);
        await store.updateMessage(again);
        expectSame(await store.getMessage("m"), again);
        expectSame((await store.getHistory())[0], again);
      },
    );

    suite.it("deletes and clears large messages", async ({ session }) => {
      const store = unlimited(session());
      await store.appendMessage(largeMessage("a", "first", SPLIT_BYTES));
      await store.appendMessage(largeMessage("b", "second", SPLIT_BYTES));
      await store.deleteMessages(["a"]);
      expect(await store.getMessage("a")).toBeNull();
      expect((await store.getHistory()).map((message) => message.id)).toEqual([
        "b",
      ]);
      await store.clearMessages();
      expect(await store.getMessage("b")).toBeNull();
      expect(await store.getHistory()).toEqual([]);
    });

    suite.it(
      "finds a word of a large message",
      async ({ session }) => {
        const store = unlimited(session());
        await store.appendMessage(textMessage("small", "nothing here"));
        await store.appendMessage(largeMessage("big", "first", SPLIT_BYTES));
        const hits = await store.search(NEEDLE);
        expect(hits.map((hit) => hit.id)).toEqual(["big"]);
      },
      { requires: { search: true } },
    );

    suite.it(
      "shortens a large message under the default limit or a given one",
      async ({ session }) => {
        const big = largeMessage("big", "first", SPLIT_BYTES);
        const byDefault = session("a");
        await quietly(() => byDefault.appendMessage(big));
        const stored = await byDefault.getMessage("big");
        expect(stored!.parts[0]!.text === big.parts[0]!.text).toBe(false);
        expect(stored!.metadata).toEqual({
          variant: "first",
          compactedTextParts: [0],
        });
        // The default limit: 1,800,000 bytes of JSON (docs/behavior/overlays.md).
        expect(utf8Bytes(JSON.stringify(stored)) <= 1_800_000).toBe(true);
        const limited = session("b").withRowSizeLimit(3000);
        await quietly(() =>
          limited.appendMessage(textMessage("t", "x".repeat(5000))),
        );
        const shortened = await limited.getMessage("t");
        expect(utf8Bytes(JSON.stringify(shortened)) <= 3000).toBe(true);
      },
    );

    suite.it(
      "checks the row-size limit and takes it before first use only",
      async ({ session }) => {
        const store = session();
        for (const bad of [0, -1, 1.5, Number.NaN, "100", true, null]) {
          const error = caughtSync(() => store.withRowSizeLimit(bad as number));
          expect(summarizeError(error)).toEqual({
            kind: "TypeError",
            code: "INVALID_ARGUMENT",
            marked: true,
          });
        }
        await store.appendMessage(textMessage("m"));
        const late = caughtSync(() => store.withRowSizeLimit(false));
        expect(summarizeError(late).code).toBe("SESSION_ALREADY_INITIALIZED");
      },
    );
  });
}

// --- Internal helpers ---

/**
 * A text message of about `bytes` bytes of mixed ASCII, Cyrillic, CJK and emoji, so the
 * 1.5 MiB piece boundaries of a SQL-tag store fall inside multi-byte characters.
 */
function largeMessage(
  id: string,
  variant: string,
  bytes: number,
): SessionMessage {
  const unit = `${variant} ascii привет мир 金曜日の会議 🎉🚀 `;
  const repeats = Math.ceil(bytes / utf8Bytes(unit));
  const text = `${NEEDLE} ${unit.repeat(repeats)}`;
  return {
    id,
    role: "assistant",
    parts: [{ type: "text", text }],
    metadata: { variant },
  };
}

/** Deep-equal and the same JSON text, without handing a 20 MB string to the runner's diff. */
function expectSame(
  actual: SessionMessage | null | undefined,
  expected: SessionMessage,
): void {
  const same =
    actual !== null &&
    actual !== undefined &&
    JSON.stringify(actual) === JSON.stringify(expected);
  if (!same)
    throw new Error(
      `[arbor-memory/testing] message "${expected.id}" was not read back identical (${describe(actual)})`,
    );
}

function describe(actual: SessionMessage | null | undefined): string {
  if (actual === null || actual === undefined) return String(actual);
  return `${utf8Bytes(JSON.stringify(actual))} bytes of JSON`;
}

/** Runs `work` with the row-size warning silenced. */
async function quietly(work: () => Promise<unknown>): Promise<void> {
  const warn = console.warn;
  console.warn = () => undefined;
  try {
    await work();
  } finally {
    console.warn = warn;
  }
}
