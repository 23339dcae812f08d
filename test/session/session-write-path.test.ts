// Session write path over the built-in providers: the parent is resolved once (by the provider's
// atomic insert), the message is JSON-encoded once, and the audit record names the parent the
// store really used, even when another connection appends in between.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type {
  SeedSessionProvider,
  SessionProvider,
} from "../../src/session/contracts/provider.js";
import type { AuditEvent } from "../../src/session/contracts/audit.js";
import type { SessionMessage } from "../../src/session/contracts/types.js";
import { InMemorySessionProvider } from "../../src/backends/memory/index.js";
import { AgentSessionProvider } from "../../src/backends/sql/index.js";
import { Session } from "../../src/session/facade/session.js";
import { openSqlite } from "../../src/sqlite/index.js";

const PARENT_READS = new Set([
  "getMessage",
  "getLatestLeaf",
  "getLatestLeafId",
]);

const BACKENDS: Array<[string, () => SessionProvider]> = [
  ["in-memory", () => new InMemorySessionProvider({ sessionId: "s" })],
  ["sqlite", () => new AgentSessionProvider(openSqlite(":memory:"), "s")],
];

describe.each(BACKENDS)("Session write path (%s)", (_name, create) => {
  it("does not read the parent before the provider's insert", async () => {
    const { provider, calls } = recording(create());
    const events: AuditEvent[] = [];
    const session = new Session(provider).withAudit({
      record: (event) => void events.push(event),
    });
    await session.appendMessage(text("m1"));
    await session.appendMessage(text("m2"));
    calls.length = 0;
    await session.appendMessage(text("m3"));
    await session.appendMessage(text("b1"), "m1");
    await quietly(() => session.appendMessage(text("r1"), "missing"));
    await session.appendMessage(text("r2"));
    expect(calls.filter((name) => PARENT_READS.has(name))).toEqual([]);
    await session.flushAudit();
    const parents = events
      .filter((event) => event.type === "append")
      .map((event) => {
        const payload = event.payload as {
          message: SessionMessage;
          parentId: string | null;
        };
        return [payload.message.id, payload.parentId];
      });
    expect(parents).toEqual([
      ["m1", null],
      ["m2", "m1"],
      ["m3", "m2"],
      ["b1", "m1"],
      ["r1", null],
      ["r2", "r1"],
    ]);
  });

  it("reads the latest leaf once per append for the token estimate", async () => {
    const { provider, calls } = recording(create());
    const session = new Session(provider)
      .onCompaction(async () => null)
      .compactAfter(1_000_000);
    await session.appendMessage(text("m1"));
    await session.appendMessage(text("m2"));
    calls.length = 0;
    for (const id of ["m3", "m4", "m5", "m6"])
      await session.appendMessage(text(id));
    const leafReads = calls.filter(
      (name) => name === "getLatestLeafId" || name === "getLatestLeaf",
    );
    expect(leafReads).toHaveLength(4);
    expect(calls.filter((name) => name === "getHistory")).toEqual([]);
  });

  it("JSON-encodes a message once per append and per update", async () => {
    const session = new Session(create());
    let encodings = 0;
    const counted = (id: string): SessionMessage => ({
      ...text(id),
      metadata: {
        toJSON() {
          encodings += 1;
          return { counted: true };
        },
      },
    });
    await session.appendMessage(counted("m1"));
    expect(encodings).toBe(1);
    await session.updateMessage(counted("m1"));
    expect(encodings).toBe(2);
    expect((await session.getMessage("m1"))?.metadata).toEqual({
      counted: true,
    });
  });
});

describe("Session write path over a custom provider", () => {
  it("calls writeMessages with the JSON it encoded, and looks no parent up", async () => {
    const base = new InMemorySessionProvider({ sessionId: "s" });
    const { provider, calls } = recording(base);
    const jsons: Array<string | undefined> = [];
    const write = provider.writeMessages.bind(provider);
    provider.writeMessages = (messages, options) => {
      jsons.push(...messages.map((entry) => entry.json));
      return write(messages, options);
    };
    const events: AuditEvent[] = [];
    const session = new Session(provider).withAudit({
      record: (event) => void events.push(event),
    });
    await session.appendMessage(text("m1"));
    await session.appendMessage(text("m2"));
    expect(jsons).toEqual([
      JSON.stringify(text("m1")),
      JSON.stringify(text("m2")),
    ]);
    expect(calls.filter((name) => PARENT_READS.has(name))).toEqual([]);
    await session.flushAudit();
    expect(
      events.map((event) => (event.payload as { parentId: unknown }).parentId),
    ).toEqual([null, "m1"]);
  });

  it("never changes the provider object it is given (a seed-shaped one without watchChanges)", async () => {
    const base = new InMemorySessionProvider();
    const provider: SeedSessionProvider = {
      getMessage: (id) => base.getMessage(id),
      getHistory: (leafId) => base.getHistory(leafId),
      getLatestLeaf: () => base.getLatestLeaf(),
      getBranches: (id) => base.getBranches(id),
      getPathLength: (leafId) => base.getPathLength(leafId),
      appendMessage: (message, parentId) =>
        base.appendMessage(message, parentId),
      updateMessage: (message) => base.updateMessage(message),
      deleteMessages: (ids) => base.deleteMessages(ids),
      clearMessages: () => base.clearMessages(),
      addCompaction: (summary, from, to, meta) =>
        base.addCompaction(summary, from, to, meta),
      getCompactions: () => base.getCompactions(),
    };
    const members = { ...provider };
    const session = new Session(provider);
    // Without watchChanges there is no feed to patch in: watch() says so.
    expect(() => session.watch(() => {})).toThrow(
      expect.objectContaining({ code: "NOT_SUPPORTED" }),
    );
    await session.appendMessage(text("m1"));
    await session.switchBranch("m1");
    expect((await session.getHistory()).map((message) => message.id)).toEqual([
      "m1",
    ]);
    expect({ ...provider }).toEqual(members);
  });
});

describe("Session audit across sqlite connections", () => {
  it("records the parent the store used when another connection appends in between", async () => {
    const scratch = mkdtempSync(join(tmpdir(), "arbor-write-path-"));
    try {
      const file = join(scratch, "shared.db");
      const events: AuditEvent[] = [];
      const first = Session.create(openSqlite(file))
        .forSession("s")
        .withAudit({ record: (event) => void events.push(event) });
      const second = Session.create(openSqlite(file)).forSession("s");
      await first.appendMessage(text("start"));
      await Promise.all(
        Array.from({ length: 60 }, (_, index) =>
          (index % 2 === 0 ? first : second).appendMessage(text(`m${index}`)),
        ),
      );
      await first.flushAudit();
      const stored = new Map(
        (await first.exportSnapshot()).messages.map((record) => [
          record.message.id,
          record.parentId,
        ]),
      );
      const recorded = events
        .filter((event) => event.type === "append")
        .map((event) => {
          const payload = event.payload as {
            message: SessionMessage;
            parentId: string | null;
          };
          return [payload.message.id, payload.parentId];
        });
      expect(recorded).toHaveLength(31);
      expect(recorded).toEqual(
        recorded.map(([id]) => [id, stored.get(id as string)]),
      );
      expect(await first.getPathLength()).toBe(61);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

// --- Internal helpers ---

function text(id: string): SessionMessage {
  return { id, role: "user", parts: [{ type: "text", text: `text of ${id}` }] };
}

/** A provider that delegates to `base` and logs each method it is asked for, in order. */
function recording(base: SessionProvider): {
  provider: SessionProvider;
  calls: string[];
} {
  const calls: string[] = [];
  const provider: Record<string, unknown> = {
    sessionId: base.sessionId,
    storeIdentity: base.storeIdentity ?? base,
  };
  const target = base as unknown as Record<string, unknown>;
  for (const name of [
    "getMessage",
    "getHistory",
    "getLatestLeaf",
    "getLatestLeafId",
    "getBranches",
    "getPathLength",
    "writeMessages",
    "updateMessage",
    "deleteMessages",
    "clearMessages",
    "addCompaction",
    "getCompactions",
    "getConfig",
    "setConfig",
    "exportMessages",
    "watchChanges",
  ]) {
    const method = target[name];
    if (typeof method !== "function") continue;
    provider[name] = (...args: unknown[]) => {
      calls.push(name);
      return (method as (...values: unknown[]) => unknown).apply(base, args);
    };
  }
  return { provider: provider as unknown as SessionProvider, calls };
}

async function quietly<T>(fn: () => Promise<T>): Promise<T> {
  const warn = console.warn;
  console.warn = () => undefined;
  try {
    return await fn();
  } finally {
    console.warn = warn;
  }
}
