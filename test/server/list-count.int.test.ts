// GET /v1/sessions counts each listed session's messages (docs/server.md#sessions). The count must
// be the backend's own (a COUNT), never an export of every message: with a 20,000-message session
// the export costs 150-270 ms per row. No time is asserted: on every built-in backend the page
// comes from the registry's `listDetailed` (one query, the provider's `countMessages` never
// called), a registry without it falls back to the provider's `countMessages` per row, and
// `exportMessages` is never called.
import { postgresBackend } from "../../src/postgres/index.js";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/server/index.js";
import { SessionManager } from "../../src/session/index.js";
import type { SessionProvider } from "../../src/session/contracts/provider.js";
import type { SessionRegistry } from "../../src/session/contracts/registry.js";
import { InMemorySessionProvider } from "../../src/backends/memory/index.js";
import { InMemorySessionRegistry } from "../../src/backends/memory/memory-registry.js";
import { memoryBackend } from "../../src/backends/memory/memory-backend.js";
import { AgentSessionProvider } from "../../src/backends/sql/index.js";
import { SqlSessionRegistry } from "../../src/backends/sql/sql-registry.js";
import { PostgresSessionProvider } from "../../src/backends/postgres/index.js";
import { PostgresSessionRegistry } from "../../src/backends/postgres/postgres-registry.js";
import { Session } from "../../src/session/facade/session.js";
import { openSqlite } from "../../src/sqlite/index.js";
import {
  createTestDatabase,
  describePostgres,
  type TestDatabase,
} from "../providers/postgres-database.js";
import { client } from "./support/client.js";

const LARGE = 20_000;
/** Smaller on PostgreSQL, where writing the rows alone takes about 10 ms each on a busy machine: the count path is the same at any size. */
const LARGE_ON_POSTGRES = 500;
const BATCH = 1_000;

afterEach(() => {
  vi.restoreAllMocks();
});

/**
 * Lists sessions, one of them with `size` messages, and checks which members ran: the registry's
 * `listDetailed` once when `registry` has it, else the provider's `countMessages` per row.
 */
async function listsWithTheStoreCount(
  manager: SessionManager,
  prototype: SessionProvider,
  registry: SessionRegistry | null,
  size = LARGE,
): Promise<void> {
  // Spied from the start: a Session resolves its provider's members when it first opens.
  const count = vi.spyOn(prototype, "countMessages");
  const exported = vi.spyOn(prototype, "exportMessages");
  const detailed = registry
    ? vi.spyOn(registry as Required<SessionRegistry>, "listDetailed")
    : undefined;
  const call = client(createApp({ manager }));
  const large = (
    await call("POST", "/v1/sessions", { json: { name: "Large" } })
  ).body.id as string;
  await call("POST", "/v1/sessions", { json: { name: "Empty" } });
  const session = manager.getSession(large);
  for (let start = 0; start < size; start += BATCH) {
    await session.appendAll(
      Array.from({ length: Math.min(BATCH, size - start) }, (_, index) => ({
        id: `m${start + index}`,
        role: "user",
        parts: [{ type: "text", text: `Message ${start + index}` }],
      })),
    );
  }
  count.mockClear();
  exported.mockClear();
  detailed?.mockClear();

  const listed = await call("GET", "/v1/sessions");
  expect(listed.status).toBe(200);
  const counts = Object.fromEntries(
    listed.body.sessions.map((row: any) => [row.name, row.messageCount]),
  );
  expect(counts).toEqual({ Large: size, Empty: 0 });
  expect(count).toHaveBeenCalledTimes(detailed ? 0 : 2);
  if (detailed) expect(detailed).toHaveBeenCalledTimes(1);
  expect(exported).not.toHaveBeenCalled();
}

describe("GET /v1/sessions counts through the provider's count", () => {
  it("in memory", async () => {
    await listsWithTheStoreCount(
      SessionManager.inMemory(),
      InMemorySessionProvider.prototype,
      InMemorySessionRegistry.prototype,
    );
  });

  it("through a registry without listDetailed (the per-row fallback)", async () => {
    const backend = memoryBackend();
    const { listDetailed: _, ...rest } = Object.fromEntries(
      Object.getOwnPropertyNames(InMemorySessionRegistry.prototype)
        .filter((name) => name !== "constructor")
        .map((name) => [
          name,
          (...args: unknown[]) =>
            (backend.registry as any)[name](...args) as unknown,
        ]),
    );
    const registry = rest as unknown as SessionRegistry;
    expect(registry.listDetailed).toBeUndefined();
    await listsWithTheStoreCount(
      new SessionManager({
        registry,
        openSession: (id) => Session.create(backend.session(id)),
      }),
      InMemorySessionProvider.prototype,
      null,
    );
  });

  it("on SQLite", async () => {
    const db = openSqlite(":memory:");
    try {
      await listsWithTheStoreCount(
        SessionManager.create(db),
        AgentSessionProvider.prototype,
        SqlSessionRegistry.prototype,
      );
    } finally {
      db.close();
    }
  });
});

describePostgres(
  "GET /v1/sessions counts through the provider's count on PostgreSQL",
  () => {
    let database: TestDatabase | undefined;
    afterAll(() => database?.drop(), 60_000);

    it("over a pg Pool", async () => {
      database = await createTestDatabase();
      await listsWithTheStoreCount(
        SessionManager.create(postgresBackend(database.pool)),
        PostgresSessionProvider.prototype,
        PostgresSessionRegistry.prototype,
        LARGE_ON_POSTGRES,
      );
    }, 120_000);
  },
);
