// The behaviour of `arbor-memory/sessions`, one case per documented behaviour of the
// `agents/sessions` surface it mirrors (names, argument and result shapes), run on each backend
// by the runners beside this file. Each case gets a fresh store from the runner's factory.
import { describe, expect, it } from "vitest";
import type { SessionMessage } from "../../src/session/index.js";
import {
  COMPACTION_PREFIX,
  createCompactFunction,
  isCompactionMessage,
  Sessions,
  type SessionChangeEvent,
  type SessionsStore,
} from "../../src/sessions/index.js";

/** Makes a fresh (or emptied) store for one case; `dispose` runs after it. */
export interface SessionsBackend {
  name: string;
  create(): Promise<SessionsStore> | SessionsStore;
  dispose?(store: SessionsStore): Promise<void> | void;
}

/** A user message with one text part. */
export function text(
  id: string,
  body = id,
  extra: Partial<SessionMessage> = {},
): SessionMessage {
  return { id, role: "user", parts: [{ type: "text", text: body }], ...extra };
}

/** A text of `bytes` UTF-8 bytes mixing one-, two-, three- and four-byte characters. */
export function largeBody(bytes: number): string {
  const unit = "Grüße aus Kyōto, 東京 🌸 ";
  const unitBytes = utf8Bytes(unit);
  let body = unit.repeat(Math.floor(bytes / unitBytes));
  while (utf8Bytes(body) < bytes) body += "x";
  return body;
}

/** UTF-8 size of a string. */
export function utf8Bytes(value: string): number {
  return new TextEncoder().encode(value).length;
}

/** Polls until `check` stops throwing (change events arrive after the write resolves). */
export async function eventually(
  check: () => void,
  timeoutMs = 5000,
): Promise<void> {
  const start = Date.now();
  for (;;) {
    try {
      check();
      return;
    } catch (error) {
      if (Date.now() - start > timeoutMs) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

export function runSessionsSpec(backend: SessionsBackend): void {
  describe(`arbor-memory/sessions on ${backend.name}`, () => {
    const withSessions = (
      name: string,
      body: (sessions: Sessions) => Promise<void>,
      options: { reservedMetadataKeys?: string[] } = {},
    ) =>
      it(name, async () => {
        const store = await backend.create();
        try {
          await body(new Sessions(store, options));
        } finally {
          for (const stop of open.splice(0)) stop();
          await backend.dispose?.(store);
        }
      });

    const ids = (messages: readonly { id: string }[]) =>
      messages.map((message) => message.id);
    const collect = async <T>(iterable: AsyncIterable<T>) => {
      const out: T[] = [];
      for await (const item of iterable) out.push(item);
      return out;
    };
    // Feeds still open when a case fails are stopped after it, so none leaks into the next.
    const open: Array<() => void> = [];
    const record = (sessions: Sessions) => {
      const events: SessionChangeEvent[] = [];
      const stop = sessions.subscribe((event) => {
        events.push(event);
      });
      open.push(stop);
      return { events, stop };
    };

    // --- Handles ---

    withSessions(
      "session() defaults to the empty id and caches handles per id",
      async (sessions) => {
        expect(sessions.session().sessionId).toBe("");
        expect(sessions.session()).toBe(sessions.session(""));
        expect(sessions.session("support")).toBe(sessions.session("support"));
        await sessions.session("support").appendMessage(text("a"));
        await sessions.session("sales").appendMessage(text("b"));
        expect(ids(await sessions.session("support").getHistory())).toEqual([
          "a",
        ]);
        expect(ids(await sessions.session("sales").getHistory())).toEqual([
          "b",
        ]);
        expect(await sessions.session().getHistory()).toEqual([]);
      },
    );

    // --- Writes ---

    withSessions(
      "appendMessage returns { inserted: true, message } with the stored form",
      async (sessions) => {
        const result = await sessions
          .session()
          .appendMessage(text("u1", "Hello"));
        expect(result.inserted).toBe(true);
        expect(result.message).toMatchObject(text("u1", "Hello"));
        expect(result.message).toEqual(
          await sessions.session().getMessage("u1"),
        );
      },
    );

    withSessions(
      "a repeated append is idempotent on id: inserted false and the row already stored",
      async (sessions) => {
        const session = sessions.session();
        await session.appendMessage(text("u1", "first"));
        const again = await session.appendMessage(text("u1", "second"));
        expect(again.inserted).toBe(false);
        expect(again.message.parts).toEqual([{ type: "text", text: "first" }]);
        expect(ids(await session.getHistory())).toEqual(["u1"]);
      },
    );

    withSessions(
      "of 20 concurrent appends of one id exactly one reports inserted, with one append event",
      async (sessions) => {
        const session = sessions.session();
        const { events } = record(sessions);
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, index) =>
            session.appendMessage(text("u1", `body ${index}`)),
          ),
        );
        const inserted = results.filter((result) => result.inserted);
        expect(inserted).toHaveLength(1);
        const stored = await session.getMessage("u1");
        for (const result of results) expect(result.message).toEqual(stored);
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(events.filter((event) => event.type === "append")).toHaveLength(
          1,
        );
        expect(ids(await session.getHistory())).toEqual(["u1"]);
      },
    );

    withSessions(
      "an append attaches to the active leaf; parentId null makes a root, a message id a branch",
      async (sessions) => {
        const session = sessions.session();
        await session.appendMessage(text("u1"));
        await session.appendMessage(text("a1"));
        await session.appendMessage(text("a2"), { parentId: "u1" });
        expect(ids(await session.getBranches("u1"))).toEqual(["a1", "a2"]);
        expect(ids(await session.getHistory({ leafId: "a1" }))).toEqual([
          "u1",
          "a1",
        ]);
        expect(ids(await session.getHistory({ leafId: "a2" }))).toEqual([
          "u1",
          "a2",
        ]);
        await session.appendMessage(text("r"), { parentId: null });
        expect(ids(await session.getHistory({ leafId: "r" }))).toEqual(["r"]);
      },
    );

    withSessions(
      "a parentId that is not in this session falls back to a root",
      async (sessions) => {
        await sessions.session("other").appendMessage(text("elsewhere"));
        const session = sessions.session();
        await session.appendMessage(text("u1"));
        await session.appendMessage(text("u2"), { parentId: "elsewhere" });
        expect(ids(await session.getHistory({ leafId: "u2" }))).toEqual(["u2"]);
      },
    );

    withSessions(
      'source: "client" strips reservedMetadataKeys; server writes keep them',
      async (sessions) => {
        const session = sessions.session();
        const metadata = { channel: "web", turnMetadata: 1, note: "kept" };
        const client = await session.appendMessage(
          text("c", "c", { metadata }),
          { source: "client" },
        );
        expect(client.message.metadata).toEqual({ note: "kept" });
        const server = await session.appendMessage(
          text("s", "s", { metadata }),
        );
        expect(server.message.metadata).toEqual(metadata);
        const updated = await session.updateMessage(
          text("s", "s2", { metadata }),
          { source: "client" },
        );
        expect(updated?.metadata).toEqual({ note: "kept" });
      },
      { reservedMetadataKeys: ["channel", "turnMetadata"] },
    );

    withSessions(
      "a compaction_ id is never stored by append, upsert or update, and dispatches nothing",
      async (sessions) => {
        const { events, stop } = record(sessions);
        const session = sessions.session();
        const overlay = text(`${COMPACTION_PREFIX}x`, "summary");
        expect((await session.appendMessage(overlay)).inserted).toBe(false);
        expect((await session.upsertMessage(overlay)).inserted).toBe(false);
        expect(await session.updateMessage(overlay)).toBeNull();
        await session.appendMessage(text("u1"));
        await eventually(() =>
          expect(events.map((event) => event.type)).toEqual(["append"]),
        );
        expect(ids(await session.getHistory())).toEqual(["u1"]);
        stop();
      },
    );

    withSessions(
      "updateMessage returns the stored form, null for an absent id, and an unchanged message writes nothing",
      async (sessions) => {
        const session = sessions.session();
        await session.appendMessage(text("u1", "before"));
        const { events, stop } = record(sessions);
        expect(await session.updateMessage(text("ghost"))).toBeNull();
        expect(await session.updateMessage(text("u1", "before"))).toMatchObject(
          text("u1", "before"),
        );
        const updated = await session.updateMessage(text("u1", "after"));
        expect(updated?.parts).toEqual([{ type: "text", text: "after" }]);
        await eventually(() =>
          expect(events.map((event) => event.type)).toEqual(["update"]),
        );
        expect(events[0]).toMatchObject({
          type: "update",
          sessionId: "",
          message: { id: "u1" },
        });
        stop();
      },
    );

    withSessions(
      "upsertMessage inserts an absent id and updates a present one",
      async (sessions) => {
        const session = sessions.session();
        const first = await session.upsertMessage(text("u1", "one"));
        expect(first).toMatchObject({ inserted: true, message: { id: "u1" } });
        const second = await session.upsertMessage(text("u1", "two"));
        expect(second.inserted).toBe(false);
        expect(second.message.parts).toEqual([{ type: "text", text: "two" }]);
        expect(ids(await session.getHistory())).toEqual(["u1"]);
      },
    );

    withSessions(
      "deleting a message mid-chain splices its children to its parent",
      async (sessions) => {
        const session = sessions.session();
        for (const id of ["a", "b", "c", "d"])
          await session.appendMessage(text(id));
        await session.deleteMessages(["b"]);
        expect(ids(await session.getHistory())).toEqual(["a", "c", "d"]);
      },
    );

    withSessions(
      "clearMessages empties this session only",
      async (sessions) => {
        await sessions.session().appendMessage(text("a"));
        await sessions.session("kept").appendMessage(text("b"));
        await sessions.session().clearMessages();
        expect(await sessions.session().getHistory()).toEqual([]);
        expect(await sessions.session().getLatestLeaf()).toBeNull();
        expect(ids(await sessions.session("kept").getHistory())).toEqual(["b"]);
      },
    );

    withSessions(
      "importMessage writes verbatim under an explicit parent with createdAt in epoch ms",
      async (sessions) => {
        const session = sessions.session();
        const at = Date.UTC(2025, 0, 2, 3, 4, 5);
        await session.importMessage(text("x1"), {
          parentId: null,
          createdAt: at,
        });
        await session.importMessage(text("x2"), {
          parentId: "x1",
          createdAt: at + 1000,
        });
        await session.importMessage(text("x2", "again"), {
          parentId: "x1",
          createdAt: at,
        });
        const history = await session.getHistory();
        expect(ids(history)).toEqual(["x1", "x2"]);
        expect(history[1]!.parts).toEqual([{ type: "text", text: "x2" }]);
        // The time is the row's, where the package's shapes carry it: search results.
        const [hit] = await session.search("x1");
        expect(new Date(hit!.createdAt!).getTime()).toBe(at);
      },
    );

    withSessions(
      "getMessage after importMessage returns the message as given, without an added createdAt",
      async (sessions) => {
        const session = sessions.session();
        const message = text("x1", "imported from the old chat", {
          metadata: { channel: "web" },
        });
        await session.importMessage(message, {
          parentId: null,
          createdAt: Date.UTC(2025, 5, 6),
        });
        expect(await session.getMessage("x1")).toEqual(message);
        expect(await session.getHistory()).toEqual([message]);
        expect(await collect(session.history({ newestFirst: true }))).toEqual([
          message,
        ]);
      },
    );

    withSessions(
      "importMessage stores a compaction_ id as given; with no overlay of its own here, the row reads as a message",
      async (sessions) => {
        const session = sessions.session();
        const summary = text(
          `${COMPACTION_PREFIX}copied`,
          "summary of elsewhere",
          { role: "assistant" },
        );
        await session.importMessage(summary, {
          parentId: null,
          createdAt: Date.now(),
        });
        await session.importMessage(text("after"), {
          parentId: summary.id,
          createdAt: Date.now(),
        });
        expect(await session.getMessage(summary.id)).toEqual(summary);
        // The only copy of that summary: it stays in the history.
        expect(ids(await session.getHistory())).toEqual([summary.id, "after"]);
        expect(ids(await session.getBranches(summary.id))).toEqual(["after"]);
        expect((await session.getLatestLeaf())?.id).toBe("after");
      },
    );

    withSessions(
      "a compaction_ row is hidden where an overlay of this session stands for it",
      async (sessions) => {
        const session = sessions.session();
        for (const id of ["u1", "a1", "u2"])
          await session.appendMessage(text(id));
        const overlay = await session.addCompaction("u1 and a1", "u1", "a1");
        const written = text(`${COMPACTION_PREFIX}${overlay.id}`, "u1 and a1", {
          role: "assistant",
        });
        await session.importMessage(written, {
          parentId: "u2",
          createdAt: Date.now(),
        });
        expect(ids(await session.getHistory())).toEqual([written.id, "u2"]);
        expect((await session.getLatestLeaf())?.id).toBe("u2");
        expect(await session.getBranches("u2")).toEqual([]);
        expect(await session.getMessage(written.id)).toEqual(written);
      },
    );

    withSessions(
      "getBranches lists a hidden row's child in its own place among its siblings",
      async (sessions) => {
        const session = sessions.session();
        await session.appendMessage(text("u1"));
        const overlay = await session.addCompaction("u1", "u1", "u1");
        const hiddenId = `${COMPACTION_PREFIX}${overlay.id}`;
        await session.importMessage(text(hiddenId, "u1"), {
          parentId: "u1",
          createdAt: Date.now(),
        });
        await session.appendMessage(text("first"), { parentId: "u1" });
        await session.importMessage(text("second"), {
          parentId: hiddenId,
          createdAt: Date.now(),
        });
        await session.appendMessage(text("third"), { parentId: "u1" });
        // Oldest first, the hidden row's child where it was written, not where the row was.
        expect(ids(await session.getBranches("u1"))).toEqual([
          "first",
          "second",
          "third",
        ]);
      },
    );

    withSessions(
      "a conversation moves by replaying history() into importMessage()",
      async (sessions) => {
        const source = sessions.session("source");
        const destination = sessions.session("destination");
        for (const id of ["u1", "a1", "u2"])
          await source.appendMessage(text(id));
        let parentId: string | null = null;
        for await (const message of source.history()) {
          await destination.importMessage(message, {
            parentId,
            createdAt: message.createdAt
              ? new Date(message.createdAt).getTime()
              : Date.now(),
          });
          parentId = message.id;
        }
        // An import stores the message as given: its time goes to the row, not into the message.
        expect(await destination.getHistory()).toEqual(
          await source.getHistory(),
        );
      },
    );

    // --- Reads ---

    withSessions(
      "history() streams root → leaf; newestFirst streams leaf → root and may stop early",
      async (sessions) => {
        const session = sessions.session();
        for (let index = 0; index < 60; index++)
          await session.appendMessage(text(`m${index}`));
        const all = ids(await collect(session.history()));
        expect(all).toHaveLength(60);
        expect(all[0]).toBe("m0");
        const newest: string[] = [];
        for await (const message of session.history({ newestFirst: true })) {
          newest.push(message.id);
          if (newest.length === 3) break;
        }
        expect(newest).toEqual(["m59", "m58", "m57"]);
        expect(ids(await collect(session.history({ leafId: "m1" })))).toEqual([
          "m0",
          "m1",
        ]);
      },
    );

    withSessions(
      "history() rejects with the signal's reason once aborted",
      async (sessions) => {
        await sessions.session().appendMessage(text("a"));
        const controller = new AbortController();
        controller.abort(new Error("stop"));
        await expect(
          collect(sessions.session().history({ signal: controller.signal })),
        ).rejects.toThrow("stop");
      },
    );

    withSessions(
      "historyBatches() bounds every batch by batchSize and maxBatchBytes",
      async (sessions) => {
        const session = sessions.session();
        for (let index = 0; index < 7; index++)
          await session.appendMessage(text(`m${index}`));
        const bySize = await collect(session.historyBatches({ batchSize: 3 }));
        expect(bySize.map((batch) => batch.length)).toEqual([3, 3, 1]);
        const byBytes = await collect(
          session.historyBatches({ maxBatchBytes: 1 }),
        );
        expect(byBytes.map((batch) => batch.length)).toEqual([
          1, 1, 1, 1, 1, 1, 1,
        ]);
      },
    );

    withSessions(
      "getRecentHistory(maxBytes) returns { messages, truncated, totalContentBytes }, always at least the leaf",
      async (sessions) => {
        const session = sessions.session();
        for (let index = 0; index < 5; index++)
          await session.appendMessage(text(`m${index}`, "x".repeat(200)));
        const all = await session.getRecentHistory(1_000_000);
        expect(all.truncated).toBe(false);
        expect(ids(all.messages)).toEqual(["m0", "m1", "m2", "m3", "m4"]);
        const one = await session.getRecentHistory(1);
        expect(ids(one.messages)).toEqual(["m4"]);
        expect(one.truncated).toBe(true);
        expect(one.totalContentBytes).toBe(all.totalContentBytes);
        const two = await session.getRecentHistory(
          Math.ceil((all.totalContentBytes * 2) / 5) + 1,
        );
        expect(ids(two.messages)).toEqual(["m3", "m4"]);
      },
    );

    withSessions(
      "getRecentHistory({ leafId }) reads the window of that branch",
      async (sessions) => {
        const session = sessions.session();
        for (const id of ["u1", "a1", "u2"])
          await session.appendMessage(text(id, "y".repeat(100)));
        await session.appendMessage(text("alt", "y".repeat(100)), {
          parentId: "a1",
        });
        const branch = await session.getRecentHistory(1, { leafId: "u2" });
        expect(ids(branch.messages)).toEqual(["u2"]);
        expect(branch.truncated).toBe(true);
        const whole = await session.getRecentHistory(1_000_000, {
          leafId: "u2",
        });
        expect(ids(whole.messages)).toEqual(["u1", "a1", "u2"]);
        expect(whole.totalContentBytes).toBe(branch.totalContentBytes);
      },
    );

    withSessions(
      "getHistoryRowStats() gives { id, role, bytes, tokenEstimate } per row, root → leaf",
      async (sessions) => {
        const session = sessions.session();
        for (const id of ["u1", "a1"])
          await session.appendMessage(text(id, "z".repeat(400)));
        await session.appendMessage(text("alt"), { parentId: "u1" });
        const stats = await session.getHistoryRowStats();
        expect(ids(stats)).toEqual(["u1", "alt"]);
        for (const row of stats) {
          expect(row.role).toBe("user");
          expect(row.bytes).toBeGreaterThan(0);
          expect(row.tokenEstimate).toBe(Math.ceil(row.bytes / 4));
        }
        const branch = await session.getHistoryRowStats("a1");
        expect(ids(branch)).toEqual(["u1", "a1"]);
        expect(branch[1]!.bytes).toBeGreaterThan(400);
      },
    );

    withSessions(
      "getMessage and getLatestLeaf read stored rows, null when absent",
      async (sessions) => {
        const session = sessions.session();
        expect(await session.getLatestLeaf()).toBeNull();
        expect(await session.getMessage("nope")).toBeNull();
        await session.appendMessage(text("u1"));
        await session.appendMessage(text("a1"));
        expect((await session.getLatestLeaf())?.id).toBe("a1");
        expect((await session.getMessage("u1"))?.id).toBe("u1");
      },
    );

    withSessions(
      "search() finds text parts and returns { id, role, content, createdAt, sessionId }",
      async (sessions) => {
        const session = sessions.session();
        await session.appendMessage(
          text("u1", "the deployment failed on Friday"),
        );
        await session.appendMessage(text("u2", "lunch plans"));
        const results = await session.search("deployment failed");
        expect(ids(results)).toEqual(["u1"]);
        expect(results[0]).toMatchObject({ role: "user" });
        expect(results[0]!.content).toContain("deployment");
        expect(await session.search("lunch", { limit: 1 })).toHaveLength(1);
      },
    );

    // --- Compaction ---

    withSessions(
      "addCompaction replaces the range at read time; getCompactions lists it with an ISO createdAt",
      async (sessions) => {
        const session = sessions.session();
        for (const id of ["a", "b", "c", "d"])
          await session.appendMessage(text(id));
        const overlay = await session.addCompaction(
          "a and b, briefly",
          "a",
          "b",
        );
        expect(overlay).toMatchObject({
          summary: "a and b, briefly",
          fromMessageId: "a",
          toMessageId: "b",
        });
        expect(new Date(overlay.createdAt).toISOString()).toBe(
          overlay.createdAt,
        );
        const history = await session.getHistory();
        expect(history).toHaveLength(3);
        expect(isCompactionMessage(history[0])).toBe(true);
        expect(history[0]!.id.startsWith(COMPACTION_PREFIX)).toBe(true);
        expect(ids(history.slice(1))).toEqual(["c", "d"]);
        expect(await session.getCompactions()).toEqual([overlay]);
        expect(await session.getMessage("a")).not.toBeNull();
      },
    );

    withSessions(
      "compact() runs the onCompaction function and returns { fromMessageId, toMessageId, summary }",
      async (sessions) => {
        const session = sessions.session();
        for (const id of ["a", "b", "c", "d"])
          await session.appendMessage(text(id));
        session.onCompaction(async (messages) => ({
          fromMessageId: messages[0]!.id,
          toMessageId: messages[1]!.id,
          summary: "earlier turns",
        }));
        expect(await session.compact()).toEqual({
          fromMessageId: "a",
          toMessageId: "b",
          summary: "earlier turns",
        });
        expect(ids((await session.getHistory()).slice(1))).toEqual(["c", "d"]);
      },
    );

    withSessions(
      "compact() returns null when the compaction function throws",
      async (sessions) => {
        const session = sessions.session();
        for (const id of ["a", "b", "c"]) await session.appendMessage(text(id));
        session.onCompaction(async () => {
          throw new Error("model down");
        });
        expect(await session.compact()).toBeNull();
        expect(ids(await session.getHistory())).toEqual(["a", "b", "c"]);
      },
    );

    withSessions(
      "compactAfter auto-compacts after an append, and a failing auto-compaction never rejects the append",
      async (sessions) => {
        const good = sessions.session("good");
        good
          .onCompaction(async (messages) =>
            messages.length < 4
              ? null
              : {
                  fromMessageId: messages[0]!.id,
                  toMessageId: messages[1]!.id,
                  summary: "s",
                },
          )
          .compactAfter(1);
        for (const id of ["a", "b", "c", "d"])
          await good.appendMessage(text(id, "w".repeat(100)));
        await eventually(() => undefined);
        expect((await good.getCompactions()).length).toBeGreaterThan(0);
        const bad = sessions.session("bad");
        bad
          .onCompaction(async () => {
            throw new Error("model down");
          })
          .compactAfter(1);
        await expect(
          bad.appendMessage(text("x", "w".repeat(100))),
        ).resolves.toMatchObject({ inserted: true });
        expect(sessions.session("good")).toBe(good);
      },
    );

    withSessions(
      "createCompactFunction takes summarize and keepRecentTokens",
      async (sessions) => {
        const session = sessions.session();
        for (let index = 0; index < 12; index++)
          await session.appendMessage(
            text(`m${index}`, `turn ${index} ${"v".repeat(400)}`),
          );
        const prompts: string[] = [];
        session.onCompaction(
          createCompactFunction({
            summarize: async (prompt) => {
              prompts.push(prompt);
              return "what happened";
            },
            keepRecentTokens: 200,
          }),
        );
        const result = await session.compact();
        expect(result).not.toBeNull();
        expect(result!.fromMessageId).toBe("m3");
        expect(prompts).toHaveLength(1);
        const history = await session.getHistory();
        expect(ids(history.slice(0, 3))).toEqual(["m0", "m1", "m2"]);
        expect(history.some(isCompactionMessage)).toBe(true);
        expect(history.at(-1)!.id).toBe("m11");
      },
    );

    // --- Large messages ---

    withSessions(
      "a 2 MiB message is stored whole and read back byte for byte; row stats and the read budget count all of it",
      async (sessions) => {
        const session = sessions.session();
        const body = largeBody(2 * 1024 * 1024);
        await session.appendMessage(text("u0", "small"));
        const result = await session.appendMessage(text("big", body));
        const bodyOf = (message: SessionMessage | null | undefined) =>
          String(message?.parts[0]?.text);
        expect(result.inserted).toBe(true);
        expect(bodyOf(result.message) === body).toBe(true);
        expect(bodyOf(await session.getMessage("big")) === body).toBe(true);
        expect(bodyOf((await session.getHistory()).at(-1)) === body).toBe(true);
        const [newest] = await collect(session.history({ newestFirst: true }));
        expect(bodyOf(newest) === body).toBe(true);
        const bytes = utf8Bytes(JSON.stringify(text("big", body)));
        const stats = await session.getHistoryRowStats();
        expect(ids(stats)).toEqual(["u0", "big"]);
        expect(stats[1]!.bytes).toBeGreaterThanOrEqual(bytes);
        expect(stats[1]!.tokenEstimate).toBe(Math.ceil(stats[1]!.bytes / 4));
        const branchStats = await session.getHistoryRowStats("big");
        expect(branchStats[1]!.bytes).toBeGreaterThanOrEqual(bytes);
        for (const recent of [
          await session.getRecentHistory(1024),
          await session.getRecentHistory(1024, { leafId: "big" }),
        ]) {
          expect(ids(recent.messages)).toEqual(["big"]);
          expect(recent.truncated).toBe(true);
          expect(recent.totalContentBytes).toBeGreaterThan(bytes);
          expect(bodyOf(recent.messages[0]) === body).toBe(true);
        }
        const whole = await session.getRecentHistory(bytes * 2);
        expect(ids(whole.messages)).toEqual(["u0", "big"]);
        expect(whole.truncated).toBe(false);
      },
    );

    withSessions(
      "resending the same large body writes nothing and fires no update",
      async (sessions) => {
        const session = sessions.session();
        const big = text("big", largeBody(2 * 1024 * 1024));
        await session.appendMessage(text("u0", "small"));
        await session.appendMessage(big);
        const { events, stop } = record(sessions);
        expect((await session.appendMessage(big)).inserted).toBe(false);
        expect(
          String((await session.updateMessage(big))?.parts[0]?.text) ===
            big.parts[0]!.text,
        ).toBe(true);
        expect((await session.upsertMessage(big)).inserted).toBe(false);
        // A real change afterwards: its event is the only one.
        await session.updateMessage(text("u0", "changed"));
        await eventually(() => expect(events).toHaveLength(1));
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(
          events.map((event) => [
            event.type,
            "message" in event ? event.message.id : null,
          ]),
        ).toEqual([["update", "u0"]]);
        stop();
      },
    );

    // --- Compaction, iteratively ---

    withSessions(
      "compact() with a result starting at an existing overlay extends that overlay",
      async (sessions) => {
        const session = sessions.session();
        for (const id of ["a", "b", "c", "d", "e", "f"])
          await session.appendMessage(text(id));
        let round = 0;
        session.onCompaction(async (messages) => {
          round++;
          // First: a..b. Second: from the first summary (a compaction_ id) to d.
          return {
            fromMessageId: messages[0]!.id,
            toMessageId: round === 1 ? "b" : "d",
            summary: `summary ${round}`,
          };
        });
        expect(await session.compact()).toEqual({
          fromMessageId: "a",
          toMessageId: "b",
          summary: "summary 1",
        });
        const first = await session.getHistory();
        expect(isCompactionMessage(first[0])).toBe(true);
        expect(await session.compact()).toEqual({
          fromMessageId: "a",
          toMessageId: "d",
          summary: "summary 2",
        });
        const history = await session.getHistory();
        expect(history).toHaveLength(3);
        expect(isCompactionMessage(history[0])).toBe(true);
        expect(history[0]!.parts).toEqual([
          { type: "text", text: "summary 2" },
        ]);
        expect(ids(history.slice(1))).toEqual(["e", "f"]);
        const overlays = await session.getCompactions();
        expect(overlays).toHaveLength(2);
        expect(overlays[1]).toMatchObject({
          fromMessageId: "a",
          toMessageId: "d",
          summary: "summary 2",
        });
      },
    );

    withSessions(
      "createCompactFunction compacts a branch a second time into one extended summary",
      async (sessions) => {
        const session = sessions.session();
        const turn = (index: number) =>
          text(`m${index}`, `turn ${index} ${"v".repeat(400)}`);
        for (let index = 0; index < 12; index++)
          await session.appendMessage(turn(index));
        let calls = 0;
        session.onCompaction(
          createCompactFunction({
            summarize: async () => `summary ${++calls}`,
            keepRecentTokens: 200,
          }),
        );
        const first = await session.compact();
        expect(first).not.toBeNull();
        for (let index = 12; index < 24; index++)
          await session.appendMessage(turn(index));
        const second = await session.compact();
        expect(second).not.toBeNull();
        expect(second!.fromMessageId).toBe(first!.fromMessageId);
        const history = await session.getHistory();
        const summaries = history.filter(isCompactionMessage);
        expect(summaries).toHaveLength(1);
        expect(summaries[0]!.parts).toEqual([
          { type: "text", text: "summary 2" },
        ]);
        expect(ids(history.slice(0, 3))).toEqual(["m0", "m1", "m2"]);
        expect(history.at(-1)!.id).toBe("m23");
      },
    );

    // --- Overlay rows written as messages ---

    withSessions(
      "an overlay row of this session written as a message stays hidden: not the latest leaf, not twice in a read, not among siblings; its children are re-parented",
      async (sessions) => {
        const session = sessions.session();
        for (const id of ["u1", "a1", "u2", "a2"])
          await session.appendMessage(text(id));
        // Two overlays of one range: the newer one shows, the older one's summary was written back.
        const older = await session.addCompaction(
          "an earlier take",
          "u1",
          "a1",
        );
        const overlay = await session.addCompaction("u1 and a1", "u1", "a1");
        const [summary] = await session.getHistory();
        expect(summary!.id).toBe(`${COMPACTION_PREFIX}${overlay.id}`);
        const expected = [summary!.id, "u2", "a2"];
        const at = Date.now();
        // A mirror writing the summary it read back, after the leaf: the newest row.
        await session.importMessage(summary!, {
          parentId: "a2",
          createdAt: at,
        });
        expect((await session.getLatestLeaf())?.id).toBe("a2");
        expect(ids(await session.getHistory())).toEqual(expected);
        expect(
          ids(await collect(session.history({ newestFirst: true }))),
        ).toEqual([...expected].reverse());
        expect(
          ids((await collect(session.historyBatches({ batchSize: 2 }))).flat()),
        ).toEqual(expected);
        expect(ids(await session.getBranches("a2"))).toEqual([]);

        // An older version's overlay row beside a2, with a child of its own.
        const legacy = text(`${COMPACTION_PREFIX}${older.id}`, "old summary", {
          role: "assistant",
        });
        await session.importMessage(legacy, { parentId: "u2", createdAt: at });
        expect((await session.getLatestLeaf())?.id).toBe("a2");
        expect(ids(await session.getHistory())).toEqual(expected);
        expect(
          ids((await session.getRecentHistory(1_000_000)).messages),
        ).toEqual(expected);
        expect(ids(await session.getHistoryRowStats())).toEqual([
          "u1",
          "a1",
          "u2",
          "a2",
        ]);
        expect(ids(await session.getBranches("u2"))).toEqual(["a2"]);
        await session.importMessage(text("c1"), {
          parentId: legacy.id,
          createdAt: at,
        });
        expect(ids(await session.getBranches("u2"))).toEqual(["a2", "c1"]);
        expect((await session.getLatestLeaf())?.id).toBe("c1");
        expect(ids(await session.getHistory())).toEqual([
          summary!.id,
          "u2",
          "c1",
        ]);
        expect(
          ids(await collect(session.history({ newestFirst: true }))),
        ).toEqual(["c1", "u2", summary!.id]);
        expect(ids(await session.getHistory({ leafId: "a2" }))).toEqual(
          expected,
        );
        expect(ids(await session.getHistoryRowStats())).toEqual([
          "u1",
          "a1",
          "u2",
          "c1",
        ]);
        const recent = await session.getRecentHistory(1_000_000);
        expect(ids(recent.messages)).toEqual([summary!.id, "u2", "c1"]);
        expect(recent.truncated).toBe(false);
        // The rows themselves stay stored, as imported, and searchable.
        expect(await session.getMessage(legacy.id)).toEqual(legacy);
        expect(ids(await session.search("old summary"))).toEqual([legacy.id]);
      },
    );

    // --- Change feed ---

    withSessions(
      "subscribe() reports each committed write in order, with the stored message for append, update and import; a repeated append writes and reports nothing",
      async (sessions) => {
        const { events, stop } = record(sessions);
        const session = sessions.session("feed");
        await session.appendMessage(text("a"));
        await session.appendMessage(text("b"));
        await session.appendMessage(text("a"));
        await session.updateMessage(text("b", "edited"));
        await session.importMessage(text("i"), {
          parentId: "b",
          createdAt: Date.now(),
        });
        await session.deleteMessages(["a"]);
        await session.addCompaction("s", "b", "b");
        await session.clearMessages();
        await eventually(() => expect(events).toHaveLength(7));
        expect(events.map((event) => event.type)).toEqual([
          "append",
          "append",
          "update",
          "import",
          "delete",
          "compaction",
          "clear",
        ]);
        expect(events.every((event) => event.sessionId === "feed")).toBe(true);
        expect(events[0]).toMatchObject({ inserted: true, message: text("a") });
        expect(events[2]).toMatchObject({
          message: { id: "b", parts: [{ text: "edited" }] },
        });
        expect(events[3]).toMatchObject({
          message: { id: "i" },
          parentId: "b",
        });
        expect(events[4]).toMatchObject({ messageIds: ["a"] });
        expect(events[5]).toMatchObject({
          compaction: { summary: "s", fromMessageId: "b" },
        });
        stop();
      },
    );

    withSessions(
      "an append with a parentId reports the parent it was stored under, so a mirror tells branches apart",
      async (sessions) => {
        const session = sessions.session("branches");
        await session.appendMessage(text("u1"));
        await session.appendMessage(text("a1"));
        const seen: SessionChangeEvent[] = [];
        const stop = session.mirror({
          get: () => [] as SessionMessage[],
          set: () => undefined,
          intercept: (event) => {
            seen.push(event);
            return true;
          },
        });
        open.push(stop);
        await session.appendMessage(text("a2"), { parentId: "u1" });
        await session.appendMessage(text("r"), { parentId: null });
        await session.appendMessage(text("f"), { parentId: "elsewhere" });
        await session.upsertMessage(text("a3"), { parentId: "u1" });
        await session.appendMessage(text("next"));
        await eventually(() => expect(seen).toHaveLength(5));
        expect(
          seen.map((event) =>
            event.type === "append"
              ? [event.message.id, event.parentId]
              : [event.type],
          ),
        ).toEqual([
          ["a2", "u1"],
          ["r", null],
          ["f", null],
          ["a3", "u1"],
          ["next", undefined],
        ]);
        stop();
      },
    );

    withSessions(
      'compact() reports its overlay as "compact", addCompaction() as "compaction"',
      async (sessions) => {
        const session = sessions.session();
        for (const id of ["a", "b", "c", "d"])
          await session.appendMessage(text(id));
        const { events, stop } = record(sessions);
        session.onCompaction(async () => ({
          fromMessageId: "a",
          toMessageId: "b",
          summary: "s",
        }));
        await session.compact();
        await session.addCompaction("t", "c", "c");
        await eventually(() =>
          expect(events.map((event) => event.type)).toEqual([
            "compact",
            "compaction",
          ]),
        );
        stop();
      },
    );

    withSessions(
      "a listener that throws neither rejects the write nor stops the other listeners",
      async (sessions) => {
        const seen: string[] = [];
        const stopBad = sessions.subscribe(() => {
          throw new Error("listener bug");
        });
        const stopGood = sessions.subscribe((event) => {
          seen.push(event.type);
        });
        await expect(
          sessions.session().appendMessage(text("a")),
        ).resolves.toMatchObject({ inserted: true });
        await eventually(() => expect(seen).toEqual(["append"]));
        stopBad();
        stopGood();
        await sessions.session().appendMessage(text("b"));
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(seen).toEqual(["append"]);
      },
    );

    withSessions(
      "mirror() patches an array: append pushes, update replaces, delete filters, clear empties",
      async (sessions) => {
        let cache: { id: string; text: string }[] = [];
        const applied: Array<[string, string | undefined]> = [];
        const session = sessions.session("m");
        const stop = session.mirror({
          get: () => cache,
          set: (messages) => {
            cache = messages;
          },
          transform: (message) => ({
            id: message.id,
            text: String(message.parts[0]?.text),
          }),
          onApplied: (event, message, previous) =>
            applied.push([event.type + ":" + message.text, previous?.text]),
        });
        open.push(stop);
        await sessions.session("other").appendMessage(text("ignored"));
        await session.appendMessage(text("a", "one"));
        await session.appendMessage(text("b", "two"));
        await session.updateMessage(text("a", "uno"));
        await eventually(() =>
          expect(cache).toEqual([
            { id: "a", text: "uno" },
            { id: "b", text: "two" },
          ]),
        );
        expect(applied).toEqual([
          ["append:one", undefined],
          ["append:two", undefined],
          ["update:uno", "one"],
        ]);
        await session.deleteMessages(["a"]);
        await eventually(() =>
          expect(cache).toEqual([{ id: "b", text: "two" }]),
        );
        await session.clearMessages();
        await eventually(() => expect(cache).toEqual([]));
        stop();
      },
    );

    withSessions(
      "mirror() lets intercept handle an event instead of the default reduction",
      async (sessions) => {
        let cache: SessionMessage[] = [];
        const session = sessions.session();
        const stop = session.mirror({
          get: () => cache,
          set: (messages) => {
            cache = messages;
          },
          intercept: async (event) => {
            if (event.type !== "compact" && event.type !== "compaction")
              return false;
            cache = await session.getHistory();
            return true;
          },
        });
        open.push(stop);
        for (const id of ["a", "b", "c"]) await session.appendMessage(text(id));
        await eventually(() => expect(ids(cache)).toEqual(["a", "b", "c"]));
        await session.addCompaction("s", "a", "b");
        await eventually(() => expect(cache).toHaveLength(2));
        expect(isCompactionMessage(cache[0])).toBe(true);
        stop();
      },
    );

    withSessions(
      "mirror() ignores an update for a message the host array no longer holds",
      async (sessions) => {
        const session = sessions.session();
        await session.appendMessage(text("a", "one"));
        let cache: SessionMessage[] = [];
        const applied: string[] = [];
        const stop = session.mirror({
          get: () => cache,
          set: (messages) => {
            cache = messages;
          },
          onApplied: (event, message) =>
            applied.push(`${event.type}:${message.id}`),
        });
        open.push(stop);
        await session.updateMessage(text("a", "uno"));
        await session.appendMessage(text("b", "two"));
        await eventually(() => expect(ids(cache)).toEqual(["b"]));
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(ids(cache)).toEqual(["b"]);
        expect(applied).toEqual(["append:b"]);
        stop();
      },
    );

    withSessions(
      "mirror() does not apply an event intercept returned true for",
      async (sessions) => {
        const session = sessions.session();
        let cache: SessionMessage[] = [];
        const intercepted: string[] = [];
        const applied: string[] = [];
        const stop = session.mirror({
          get: () => cache,
          set: (messages) => {
            cache = messages;
          },
          intercept: (event) => {
            if (!("message" in event) || !event.message.id.startsWith("x"))
              return false;
            intercepted.push(`${event.type}:${event.message.id}`);
            return true;
          },
          onApplied: (event, message) =>
            applied.push(`${event.type}:${message.id}`),
        });
        open.push(stop);
        await session.appendMessage(text("x1"));
        await session.appendMessage(text("a"));
        await session.updateMessage(text("x1", "edited"));
        await session.updateMessage(text("a", "edited"));
        await eventually(() =>
          expect(applied).toEqual(["append:a", "update:a"]),
        );
        expect(intercepted).toEqual(["append:x1", "update:x1"]);
        expect(ids(cache)).toEqual(["a"]);
        stop();
      },
    );
  });
}
