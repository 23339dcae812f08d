// The API key stores (memory, SQLite, PostgreSQL over pg and postgres.js) pass the same cases:
// the key format, shown once, stored only as its SHA-256, listed without it, verified, revoked;
// on PostgreSQL the second store is the backend's declared `apiKeys`.
import { createHash } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import {
  hashApiKey,
  InMemoryApiKeyStore,
  PostgresApiKeyStore,
  SqlApiKeyStore,
  type ApiKeyStore,
} from "../../src/server/index.js";
import { memoryBackend } from "../../src/backends/memory/memory-backend.js";
import { postgresBackend } from "../../src/backends/postgres/postgres-backend.js";
import { sqlBackend } from "../../src/backends/sql/sql-backend.js";
import { openSqlite } from "../../src/sqlite/index.js";
import {
  createTestDatabase,
  describePostgres,
  type TestDatabase,
} from "../providers/postgres-database.js";

interface KeyBackend {
  /** A store; `again()` opens a second store over the same storage. */
  open(): Promise<{
    store: ApiKeyStore;
    again(): ApiKeyStore;
    rows(): Promise<unknown[]>;
  }>;
}

function keyStoreCases(name: string, backend: KeyBackend): void {
  describe(`API keys: ${name}`, () => {
    it("creates keys shown once, stored as their SHA-256 only", async () => {
      const { store, rows } = await backend.open();
      expect(await store.hasKeys()).toBe(false);
      const { key, record } = await store.create("tenant-a", {
        name: "laptop",
      });
      expect(key).toMatch(/^arbor_sk_[A-Za-z0-9_-]{43}$/);
      expect(record).toMatchObject({ tenant: "tenant-a", name: "laptop" });
      expect(record.id).toMatch(/^key_/);
      expect(await store.hasKeys()).toBe(true);
      const other = await store.create("tenant-b");
      expect(other.key).not.toBe(key);
      expect(other.record.name).toBeNull();

      const listed = await store.list();
      expect(listed.map((r) => r.tenant).sort()).toEqual([
        "tenant-a",
        "tenant-b",
      ]);
      expect(JSON.stringify(listed)).not.toContain(key.slice(9));
      const stored = JSON.stringify(await rows());
      expect(stored).not.toContain(key.slice(9));
      const sha = createHash("sha256").update(key).digest("hex");
      expect(await hashApiKey(key)).toBe(sha);
      if ((await rows()).length > 0) expect(stored).toContain(sha);
    });

    it("verifies keys to their tenant, across instances, until revoked", async () => {
      const { store, again } = await backend.open();
      const { key, record } = await store.create("tenant-a");
      expect(await store.verify(key)).toBe("tenant-a");
      expect(await again().verify(key)).toBe("tenant-a");
      for (const wrong of [
        key.slice(0, -1),
        `${key}x`,
        "",
        "arbor_sk_",
        key.replace("arbor_sk_", ""),
        "x".repeat(5000),
      ])
        expect(await store.verify(wrong)).toBeNull();
      expect(await store.revoke(record.id)).toBe(true);
      expect(await store.revoke(record.id)).toBe(false);
      expect(await store.verify(key)).toBeNull();
      expect(await again().hasKeys()).toBe(false);
    });

    it("refuses an empty tenant", async () => {
      const { store } = await backend.open();
      await expect(store.create("  ")).rejects.toThrow(/tenant/);
    });
  });
}

keyStoreCases("memory", {
  open: async () => {
    const store = new InMemoryApiKeyStore();
    return { store, again: () => store, rows: async () => [] };
  },
});

// The same stores as each backend's declared capability (`Backend.apiKeys`), loaded on first call.
keyStoreCases("memory backend's apiKeys", {
  open: async () => {
    const store = memoryBackend().apiKeys!;
    return { store, again: () => store, rows: async () => [] };
  },
});

keyStoreCases("sql backend's apiKeys", {
  open: async () => {
    const db = openSqlite(":memory:");
    const store = sqlBackend(db).apiKeys!;
    return {
      store,
      again: () => new SqlApiKeyStore(db),
      rows: async () => {
        await store.hasKeys();
        return db.sql`SELECT * FROM arbor_api_keys`;
      },
    };
  },
});

keyStoreCases("SQLite", {
  open: async () => {
    const db = openSqlite(":memory:");
    const store = new SqlApiKeyStore(db);
    return {
      store,
      again: () => new SqlApiKeyStore(db),
      rows: async () => {
        await store.hasKeys();
        return db.sql`SELECT * FROM arbor_api_keys`;
      },
    };
  },
});

for (const [name, connect] of [
  ["PostgreSQL over pg", (database: TestDatabase) => database.pool],
  [
    "PostgreSQL over postgres.js",
    (database: TestDatabase) => database.postgresJs(),
  ],
] as const) {
  describePostgres(`API keys: ${name}`, () => {
    let database: TestDatabase;
    keyStoreCases(name, {
      open: async () => {
        database ??= await createTestDatabase();
        await database.pool.query("DROP TABLE IF EXISTS arbor_api_keys");
        const client = connect(database);
        const store = new PostgresApiKeyStore(client);
        return {
          store,
          again: () => postgresBackend(client).apiKeys!,
          rows: async () => {
            await store.hasKeys();
            return (await database.pool.query("SELECT * FROM arbor_api_keys"))
              .rows;
          },
        };
      },
    });
    afterAll(() => database?.drop());
  });
}
