import type { ChangeEvent } from "../../session/contracts/changes.js";
import { textMessage } from "../fixtures.js";
import type { Suite } from "../suite.js";

/** The change feed (docs/behavior/events-and-audit.md, "Change feed"): session.watch and watchChanges. */
export function watchSpec(suite: Suite): void {
  const { expect } = suite;
  suite.describe("change feed", () => {
    suite.it(
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
        const removable = suite.capabilities.deleteCompaction;
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

    suite.it("stops delivering after unsubscribe", async ({ session }) => {
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

    suite.it(
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

    suite.it(
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
              await each.appendMessage(textMessage(`w${index}-${step}`));
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
