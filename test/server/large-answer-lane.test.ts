// Requests for a history known to answer large (one streamed before) take their turns in a lane
// of their own, not among the turns every other request shares: a burst of readers of a large
// history never holds the turns or the queue a small request needs, and a held shared turn does
// not hold them either. Real SQLite; the shared turn is held by a compaction whose summarizer is
// a fake (no LLM) that answers when the test says. No timing: every wait is for an event.
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/server/index.js";
import { SessionManager } from "../../src/session/index.js";
import { openSqlite } from "../../src/sqlite/index.js";
import { largeSession as manyMessages } from "./support/large-session.js";

/** More messages than one window holds (50): the history streams. */
const LARGE_MESSAGES = 120;

/** A session of more messages than one window holds. */
const largeSession = (manager: SessionManager): Promise<string> =>
  manyMessages(manager, {
    count: LARGE_MESSAGES,
    prefix: "l",
    text: (index) => `message ${index}`,
  });

describe("the large-answer lane", () => {
  it("answers a history known to be large while the only shared turn is held (by a compaction with a fake summarizer), and forgets it once it answers small", async () => {
    const db = openSqlite(":memory:");
    try {
      const manager = SessionManager.create(db);
      const large = await largeSession(manager);
      const small: string[] = [];
      for (const name of ["Small", "Small too"]) {
        const id = (await manager.create(name)).id;
        for (let index = 0; index < 4; index++)
          await manager.getSession(id).appendMessage({
            id: `s${index}`,
            role: index % 2 ? "assistant" : "user",
            parts: [{ type: "text", text: `small ${index}` }],
          });
        small.push(id);
      }
      /** Each compaction's summarizer waits for its release; `summarizing` hears of each call. */
      const releases: Array<() => void> = [];
      let summarizing: () => void = () => undefined;
      const app = createApp({
        manager,
        maxInFlight: 1,
        // A request that waits for the shared turn is refused after a second: the build before
        // the lane answered the large history 503 OVERLOADED here (the lane never waits).
        queueTimeoutMs: 1_000,
        compaction: async (messages) => {
          await new Promise<void>((resolve) => {
            releases.push(resolve);
            summarizing();
          });
          return {
            fromMessageId: messages[0]!.id,
            toMessageId: messages[1]!.id,
            summary: "fake summary",
          };
        },
      });
      /** A compaction of `id` holding the one shared turn until `release()`. */
      const holdSharedTurn = async (id: string) => {
        const called = new Promise<void>((resolve) => (summarizing = resolve));
        const done = app.request(`/v1/sessions/${id}/compact`, {
          method: "POST",
        });
        await called;
        return { release: releases.at(-1)!, done };
      };
      const history = async (id: string) => {
        const answer = await app.request(`/v1/sessions/${id}/history`);
        return {
          status: answer.status,
          messages: answer.ok
            ? ((await answer.json()) as { messages: unknown[] }).messages.length
            : 0,
        };
      };
      // Streamed once: known large from now on.
      expect(await history(large)).toEqual({
        status: 200,
        messages: LARGE_MESSAGES,
      });
      const first = await holdSharedTurn(small[0]!);
      // The one shared turn is held; the large history has a turn of its own.
      expect(await history(large)).toEqual({
        status: 200,
        messages: LARGE_MESSAGES,
      });
      first.release();
      expect((await first.done).status).toBe(200);

      // The active leaf moved near the root: a path of one window, so known small again,
      // and its requests go back to the shared turns: with the turn held, it waits and is refused.
      await manager.getSession(large).switchBranch("l3");
      expect(await history(large)).toEqual({ status: 200, messages: 4 });
      const second = await holdSharedTurn(small[1]!);
      expect(await history(large)).toEqual({ status: 503, messages: 0 });
      second.release();
      expect((await second.done).status).toBe(200);
    } finally {
      db.close();
    }
  });

  it("knows a history large from the first request that finds it longer than a window, and then reads its path once per request", async () => {
    const db = openSqlite(":memory:");
    try {
      /** Reads of a path (the recursive walk from a leaf) the store ran. */
      let pathReads = 0;
      const counted = {
        sql<Row = Record<string, unknown>>(
          strings: TemplateStringsArray,
          ...values: unknown[]
        ): Row[] {
          if (strings.join("?").includes("WITH RECURSIVE path")) pathReads++;
          return db.sql<Row>(strings, ...values);
        },
        transaction: <T>(fn: () => T): T => db.transaction(fn),
      };
      const manager = SessionManager.create(counted);
      const large = await largeSession(manager);
      const app = createApp({ manager, maxInFlight: 1 });
      const history = async () => {
        const answer = await app.request(`/v1/sessions/${large}/history`);
        return ((await answer.json()) as { messages: unknown[] }).messages;
      };
      // Two requests together, the history not known yet: the first tries it whole (its path's
      // sizes), finds it longer than a window and streams it (its path again); the second's
      // turn comes while the first waits for its first window's turn, and the history is
      // already known large then: it streams at once (one read of its path).
      let before = pathReads;
      for (const messages of await Promise.all([history(), history()]))
        expect(messages).toHaveLength(LARGE_MESSAGES);
      expect(pathReads - before).toBe(3);
      // Known large: streamed at once.
      before = pathReads;
      expect(await history()).toHaveLength(LARGE_MESSAGES);
      expect(pathReads - before).toBe(1);
    } finally {
      db.close();
    }
  });
});
