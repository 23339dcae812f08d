import { InMemoryAuditSink } from "../../session/index.js";
import { type AuditEvent } from "../../session/contracts/audit.js";
import { Session } from "../../session/facade/session.js";
import type { SessionMessage } from "../../session/contracts/types.js";
import { caught, summarizeError } from "../helpers.js";
import type { Suite } from "../suite.js";

/** `switchBranch()` (docs/behavior/messages-and-tree.md) and audit recording (docs/behavior/events-and-audit.md) through the Session. */
export function branchesAuditSpec(rootSuite: Suite): void {
  const suite = rootSuite.withLayer("session");
  const { expect } = suite;

  suite.describe("switchBranch", () => {
    suite.it(
      "makes a chosen branch active until the next append, which continues it",
      async ({ provider }) => {
        const session = Session.create(provider("a"));
        for (const id of ["u1", "a1", "u2", "a2"])
          await session.appendMessage(text(id));
        await session.appendMessage(text("a2b"), "u2");
        expect(ids(await session.getHistory())).toEqual([
          "u1",
          "a1",
          "u2",
          "a2b",
        ]);
        await session.switchBranch("a2");
        expect(ids(await session.getHistory())).toEqual([
          "u1",
          "a1",
          "u2",
          "a2",
        ]);
        expect((await session.getLatestLeaf())!.id).toBe("a2");
        expect(await session.getPathLength()).toBe(4);
        await session.appendMessage(text("u3"));
        expect(ids(await session.getHistory())).toEqual([
          "u1",
          "a1",
          "u2",
          "a2",
          "u3",
        ]);
        await session.appendMessage(text("a3"));
        expect(ids(await session.getHistory())).toEqual([
          "u1",
          "a1",
          "u2",
          "a2",
          "u3",
          "a3",
        ]);
        expect(ids(await session.getBranches("u2"))).toEqual(["a2", "a2b"]);
      },
    );

    suite.it(
      "keeps the chosen branch across a restart (stored in the session config)",
      async ({ provider }) => {
        const session = Session.create(provider("a"));
        for (const id of ["u1", "a1", "a1b"]) {
          await session.appendMessage(
            text(id),
            id === "a1b" ? "u1" : undefined,
          );
        }
        await session.switchBranch("a1");
        const restarted = Session.create(provider("a"));
        expect(ids(await restarted.getHistory())).toEqual(["u1", "a1"]);
        await restarted.appendMessage(text("u2"));
        expect(ids(await Session.create(provider("a")).getHistory())).toEqual([
          "u1",
          "a1",
          "u2",
        ]);
      },
      { requires: { config: true } },
    );

    suite.it(
      "can rewind to an interior message; an append there starts a new branch",
      async ({ provider }) => {
        const session = Session.create(provider("a"));
        for (const id of ["u1", "a1", "u2", "a2"])
          await session.appendMessage(text(id));
        await session.switchBranch("a1");
        expect(ids(await session.getHistory())).toEqual(["u1", "a1"]);
        await session.appendMessage(text("u2b"));
        expect(ids(await session.getBranches("a1"))).toEqual(["u2", "u2b"]);
        expect(ids(await session.getHistory())).toEqual(["u1", "a1", "u2b"]);
        const error = await caught(() => session.switchBranch("missing"));
        expect(summarizeError(error).code).toBe("MESSAGE_NOT_FOUND");
      },
    );

    suite.it(
      "ends when another writer appends: the newest leaf rules again",
      async ({ provider }) => {
        const session = Session.create(provider("a"));
        for (const id of ["u1", "a1", "a1b"])
          await session.appendMessage(
            text(id),
            id === "a1b" ? "u1" : undefined,
          );
        await session.switchBranch("a1");
        await Session.create(provider("a")).appendMessage(text("u2"), "a1b");
        expect(ids(await session.getHistory())).toEqual(["u1", "a1b", "u2"]);
      },
    );
  });

  suite.describe("audit", () => {
    suite.it(
      "records writes, overlays, prompts, skill unloads and context, in order",
      async ({ provider }) => {
        const sink = new InMemoryAuditSink();
        const session = Session.create(provider("a"))
          .withContext("memory")
          .withAudit(sink, { includeContext: true });
        await session.appendMessage(text("u1"));
        await session.appendMessage(text("u1"));
        await session.updateMessage({
          ...text("u1"),
          parts: [{ type: "text", text: "edited" }],
        });
        await session.updateMessage(text("ghost"));
        await session.appendMessage(text("a1"));
        await session.addCompaction("summary", "u1", "a1");
        await session.freezeSystemPrompt();
        await session.refreshSystemPrompt();
        session.recordContext({
          system: "sys",
          messages: [{ role: "user", content: "hi" }],
        });
        await session.deleteMessages(["a1"]);
        await session.clearMessages();
        await session.flushAudit();
        const events = sink.forSession("a");
        expect(events.map((event) => event.type)).toEqual([
          "append",
          "update",
          "append",
          "compaction",
          "prompt",
          "prompt",
          "context",
          "delete",
          "clear",
          "prompt",
        ]);
        expect(payload(events[0]!)).toEqual({
          message: text("u1"),
          parentId: null,
        });
        expect((payload(events[2]!) as { parentId: string }).parentId).toBe(
          "u1",
        );
        expect((payload(events[4]!) as { reason: string }).reason).toBe(
          "freeze",
        );
        expect(
          events.every(
            (event) => event.sessionId === "a" && /T.*Z$/.test(event.at),
          ),
        ).toBe(true);
        expect(ids(await session.getHistory())).toEqual([]);
      },
    );

    suite.it(
      "never blocks or fails the session when the sink fails",
      async ({ provider }) => {
        let calls = 0;
        const session = Session.create(provider("a")).withAudit({
          record: async () => {
            calls++;
            throw new Error("sink down");
          },
        });
        await session.appendMessage(text("u1"));
        await session.appendMessage(text("a1"));
        await session.flushAudit();
        expect(calls).toBe(2);
        expect(ids(await session.getHistory())).toEqual(["u1", "a1"]);
      },
    );
  });
}

function text(id: string): SessionMessage {
  return { id, role: "user", parts: [{ type: "text", text: `text of ${id}` }] };
}

function ids(messages: SessionMessage[]): string[] {
  return messages.map((message) => message.id);
}

function payload(event: AuditEvent): unknown {
  return event.payload;
}
