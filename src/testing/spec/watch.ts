import { hasCapability } from "../../session/contracts/provider-capabilities.js";
import type { ChangeEvent } from "../../session/contracts/changes.js";
import { Session } from "../../session/facade/session.js";
import { appendRaw, textMessage } from "../fixtures.js";
import { caughtSync, summarizeError } from "../helpers.js";
import type { CaseBody, Suite } from "../suite.js";

/** The change feed (docs/behavior/events-and-audit.md, "Change feed"): session.watch and watchChanges. */
export function watchSpec(suite: Suite): void {
  const { expect } = suite;
  /**
   * A case of the feed; a provider that declares no `watchChanges` has none, and then the case
   * checks that `watch()` says so (`NOT_SUPPORTED`) instead.
   */
  const feedIt = (name: string, body: CaseBody) =>
    suite.it(name, async (context) => {
      if (context.provider("a").watchChanges) return body(context);
      const error = caughtSync(() =>
        context.session("a").watch(() => undefined),
      );
      expect(summarizeError(error).code).toBe("NOT_SUPPORTED");
    });
  suite.describe("change feed", () => {
    feedIt(
      "delivers one event per write, with its ids, in commit order",
      async ({ session, provider }) => {
        const raw = provider("a");
        const subject = session("a", raw);
        const events: ChangeEvent[] = [];
        const stop = subject.watch((event) => void events.push(event));
        await subject.appendMessage(textMessage("m1"));
        await subject.appendMessage(textMessage("m2"));
        await subject.appendMessage(textMessage("m1")); // duplicate: no event
        await subject.updateMessage(textMessage("m2", "edited"));
        await subject.updateMessage(textMessage("absent")); // no-op: no event
        const overlay = await subject.addCompaction("sum", "m1", "m2");
        const removable = hasCapability(raw, "deleteCompaction");
        if (removable) await subject.removeCompaction(overlay.id);
        await subject.deleteMessages(["m2", "unknown"]);
        await raw.importRecords?.({
          messages: [
            {
              message: textMessage("i1"),
              parentId: null,
              createdAt: new Date().toISOString(),
            },
          ],
          compactions: [],
        });
        await subject.clearMessages();
        const expected: Array<[string, string[]]> = [
          ["append", ["m1"]],
          ["append", ["m2"]],
          ["update", ["m2"]],
          ["compaction", [overlay.id]],
          ...(removable
            ? [["compaction", [overlay.id]] as [string, string[]]]
            : []),
          ["delete", ["m2"]],
          ...(raw.importRecords
            ? [["import", ["i1"]] as [string, string[]]]
            : []),
          ["clear", []],
        ];
        await settle(() => events.length >= expected.length);
        stop();
        expect(events.map((event) => [event.type, event.ids])).toEqual(
          expected,
        );
        for (const event of events) {
          expect(event.sessionId).toBe(raw.sessionId ?? "");
          expect(event.at).toBe(new Date(event.at).toISOString());
        }
      },
    );

    feedIt(
      "announces a block write with the block's label, where the store keeps block history",
      async ({ provider }) => {
        const raw = provider("a");
        // Block history the store keeps is what every process sees; history a custom provider
        // leaves to the Session lives in one process and announces nothing.
        if (!hasCapability(raw, "contextBlocks")) return;
        const subject = Session.create(raw).withContext("memory");
        const events: ChangeEvent[] = [];
        const stop = subject.watch((event) => void events.push(event));
        await subject.appendMessage(textMessage("m1"));
        await subject.replaceContextBlock("memory", "likes tea");
        await subject.appendContextBlock("memory", "lives in Oslo");
        await settle(() => events.length >= 3);
        stop();
        expect(events.map((event) => [event.type, event.ids])).toEqual([
          ["append", ["m1"]],
          ["block", ["memory"]],
          ["block", ["memory"]],
        ]);
        // In commit order, resumable like every change.
        expect(events[2]!.seq).toBeGreaterThan(events[1]!.seq);
        const resumed: ChangeEvent[] = [];
        const again = subject.watch((event) => void resumed.push(event), {
          after: events[0]!.cursor,
        });
        await settle(() => resumed.length >= 2);
        again();
        expect(resumed.map((event) => event.type)).toEqual(["block", "block"]);
      },
    );

    feedIt("stops delivering after unsubscribe", async ({ session }) => {
      const subject = session("a");
      const events: ChangeEvent[] = [];
      const stop = subject.watch((event) => void events.push(event));
      await subject.appendMessage(textMessage("m1"));
      await settle(() => events.length >= 1);
      stop();
      await subject.appendMessage(textMessage("m2"));
      await pause(300);
      expect(events.map((event) => event.ids[0])).toEqual(["m1"]);
    });

    feedIt(
      "keeps writing and delivering when a listener throws",
      async ({ session }) => {
        const subject = session("a");
        const seen: string[] = [];
        const warn = console.warn;
        console.warn = () => {};
        try {
          const stop = subject.watch((event) => {
            seen.push(event.ids[0]!);
            throw new Error("listener failure");
          });
          await subject.appendMessage(textMessage("m1"));
          await subject.appendMessage(textMessage("m2"));
          await settle(() => seen.length >= 2);
          stop();
        } finally {
          console.warn = warn;
        }
        expect(seen).toEqual(["m1", "m2"]);
        expect((await subject.getHistory()).length).toBe(2);
      },
    );

    feedIt(
      "resumes after an event's cursor or seq: what was written meanwhile, once, then live",
      async ({ session }) => {
        const subject = session("a");
        const events: ChangeEvent[] = [];
        const stop = subject.watch((event) => void events.push(event));
        await subject.appendMessage(textMessage("m1"));
        await subject.appendMessage(textMessage("m2"));
        await settle(() => events.length >= 2);
        stop();
        const [first, second] = events as [ChangeEvent, ChangeEvent];
        expect(typeof first.cursor).toBe("string");
        expect(second.seq).toBeGreaterThan(first.seq);
        await subject.appendMessage(textMessage("m3")); // while nobody watches
        const lives: string[] = [];
        for (const after of [first.cursor, first.seq]) {
          lives.push(`live-${typeof after}`);
          const resumed: ChangeEvent[] = [];
          const again = subject.watch((event) => void resumed.push(event), {
            after,
          });
          await subject.appendMessage(textMessage(`live-${typeof after}`));
          await settle(() => resumed.length >= 2 + lives.length);
          await pause(50);
          again();
          expect(resumed.map((event) => event.ids[0])).toEqual([
            "m2",
            "m3",
            ...lives,
          ]);
          if (after === first.cursor) {
            // Each delivered event's own position resumes right after it.
            const last: ChangeEvent[] = [];
            const third = subject.watch((event) => void last.push(event), {
              after: resumed[1]!.cursor,
            });
            await settle(() => last.length >= 1);
            await pause(50);
            third();
            expect(last.map((event) => event.ids[0])).toEqual(["live-string"]);
          }
        }
      },
    );

    feedIt(
      "resumes a store-wide watch after a cursor, every session's changes once",
      async ({ provider }) => {
        const [a, b] = [provider("a"), provider("b")];
        if (!a.watchChanges) return;
        const scopes = new Set([a.sessionId ?? "", b.sessionId ?? ""]);
        const events: ChangeEvent[] = [];
        const keep = (into: ChangeEvent[]) => (event: ChangeEvent) => {
          if (scopes.has(event.sessionId)) into.push(event);
        };
        const stop = a.watchChanges(keep(events), { allSessions: true });
        await a.getMessage("none"); // the watch has its starting point
        await appendRaw(a, textMessage("a1"));
        await settle(() => events.length >= 1);
        stop();
        await appendRaw(b, textMessage("b1"));
        await appendRaw(a, textMessage("a2"));
        const resumed: ChangeEvent[] = [];
        const again = a.watchChanges(keep(resumed), {
          allSessions: true,
          after: events[0]!.cursor,
        });
        await settle(() => resumed.length >= 2);
        await pause(50);
        again();
        expect(resumed.map((event) => event.ids[0])).toEqual(["b1", "a2"]);
      },
    );

    feedIt(
      "throws INVALID_ARGUMENT for a position that is none of the store's",
      async ({ session }) => {
        const subject = session("a");
        for (const after of ["no such position", -1, 1.5]) {
          const error = caughtSync(() =>
            subject.watch(() => undefined, { after }),
          );
          expect(summarizeError(error).code).toBe("INVALID_ARGUMENT");
        }
      },
    );

    feedIt(
      "delivers every id exactly once with 8 concurrent appenders",
      async ({ provider }) => {
        const names = ["a", "b", "c", "d", "e", "f", "g", "h"];
        const providers = names.map((name) => provider(name));
        const scopes = new Set(providers.map((each) => each.sessionId ?? ""));
        const seen: string[] = [];
        const watcher = providers[0]!;
        if (!watcher.watchChanges) return;
        const stop = watcher.watchChanges(
          (event) => {
            if (scopes.has(event.sessionId))
              seen.push(`${event.sessionId}/${event.ids.join(",")}`);
          },
          { allSessions: true },
        );
        await Promise.all(
          providers.map(async (each, index) => {
            for (let step = 0; step < 5; step++)
              await appendRaw(each, textMessage(`w${index}-${step}`));
          }),
        );
        await settle(() => seen.length >= 40);
        await pause(200);
        stop();
        expect(seen).toHaveLength(40);
        expect(new Set(seen).size).toBe(40);
      },
    );
  });
}

// --- Internal helpers ---

async function settle(done: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done() && Date.now() < deadline) await pause(10);
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
