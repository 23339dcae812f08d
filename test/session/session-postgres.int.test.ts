// Session over PostgreSQL. Regression: `Session.create(pool)` accepted a pg Pool and failed only
// at the first write with "base.appendMessage is not a function"; it now throws INVALID_TARGET at
// once and names the provider to use. And the write path leaves the parent to the provider's
// atomic insert, which reports it back, instead of looking it up first.
import { afterAll, beforeAll, expect, it } from "vitest";
import type { AuditEvent } from "../../src/session/contracts/audit.js";
import type { SessionProvider } from "../../src/session/contracts/provider.js";
import { PostgresSessionProvider } from "../../src/backends/postgres/index.js";
import { Session } from "../../src/session/facade/session.js";
import {
  createTestDatabase,
  describePostgres,
  type TestDatabase,
} from "../providers/postgres-database.js";

describePostgres("Session.create() with a PostgreSQL client", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.drop());

  it("rejects a pg Pool and a pg Client with INVALID_TARGET naming PostgresSessionProvider", async () => {
    const client = await database.client();
    for (const target of [database.pool, client]) {
      let error: unknown;
      try {
        Session.create(target as never);
      } catch (thrown) {
        error = thrown;
      }
      expect(error).toBeInstanceOf(TypeError);
      expect((error as { code?: unknown }).code).toBe("INVALID_TARGET");
      expect((error as Error).message).toContain(
        "new PostgresSessionProvider(",
      );
      expect(() => new Session(target as never)).toThrow(
        /PostgresSessionProvider/,
      );
    }
  });

  it("works once the pool is wrapped as the message says", async () => {
    const session = Session.create(
      new PostgresSessionProvider(database.pool, "chat-1"),
    );
    await session.appendMessage({
      id: "u1",
      role: "user",
      parts: [{ type: "text", text: "Hi" }],
    });
    expect((await session.getHistory()).map((message) => message.id)).toEqual([
      "u1",
    ]);
  });

  it("appends without a parent lookup before the insert and audits the stored parent", async () => {
    const base = new PostgresSessionProvider(database.pool, "write-path");
    const calls: string[] = [];
    const provider = {
      sessionId: base.sessionId,
      storeIdentity: base.storeIdentity,
    } as Record<string, unknown>;
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
      "watchChanges",
    ] as const) {
      const method = (base as unknown as Record<string, unknown>)[name];
      if (typeof method !== "function") continue;
      provider[name] = (...args: unknown[]) => {
        calls.push(name);
        return (method as (...values: unknown[]) => unknown).apply(base, args);
      };
    }
    const events: AuditEvent[] = [];
    const session = new Session(
      provider as unknown as SessionProvider,
    ).withAudit({ record: (event) => void events.push(event) });
    const text = (id: string) => ({
      id,
      role: "user" as const,
      parts: [{ type: "text", text: id }],
    });
    await session.appendMessage(text("m1"));
    calls.length = 0;
    await session.appendMessage(text("m2"));
    await session.appendMessage(text("b1"), "m1");
    expect(calls).toEqual(["writeMessages", "writeMessages"]);
    await session.flushAudit();
    expect(
      events.map((event) => {
        const payload = event.payload as {
          message: { id: string };
          parentId: string | null;
        };
        return [payload.message.id, payload.parentId];
      }),
    ).toEqual([
      ["m1", null],
      ["m2", "m1"],
      ["b1", "m1"],
    ]);
  });
});
