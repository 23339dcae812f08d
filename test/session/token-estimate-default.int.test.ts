// The token estimate a store counts with (docs/token-estimation.md): stores created now record the
// multilingual estimate, older stores and lifted reference databases keep the heuristic, and a
// counter with a per-message form is asked about each message once, never about the whole branch.
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openSqlite } from "../../src/sqlite/index.js";
import {
  AgentSessionProvider,
  InMemorySessionProvider,
  Session,
  type SessionEvent,
  type SessionMessage,
  type SessionTokenCounter,
} from "../../src/session/index.js";
import {
  estimateMessageTokens,
  estimateMessageTokensMultilingual,
  estimateStringTokensMultilingual,
  multilingualTokenCounter,
} from "../../src/utils/index.js";
import { MIGRATIONS } from "../../src/backends/sql/sql-schema.js";
import {
  applyPostgresSchema,
  PostgresSessionProvider,
} from "../../src/backends/postgres/index.js";
import {
  createTestDatabase,
  describePostgres,
} from "../providers/postgres-database.js";

const chinese = (index: number): SessionMessage => ({
  id: `m${index}`,
  role: index % 2 === 0 ? "user" : "assistant",
  parts: [{ type: "text", text: `会话历史的压缩和分支，第${index}条消息。` }],
});

/**
 * The `tokenEstimate` of the idle event after each of `count` appends. The estimate runs when
 * compaction is automatic, so a compaction function that never compacts is registered.
 */
async function estimatesAfterAppends(
  session: Session,
  count: number,
): Promise<number[]> {
  // compactAfter without options keeps a counter given before.
  session.onCompaction(async () => null).compactAfter(1_000_000);
  const estimates: number[] = [];
  session.onStatus((event: SessionEvent) => {
    if (event.type === "cf_agent_session" && event.phase === "idle")
      estimates.push(event.tokenEstimate);
  });
  for (let index = 0; index < count; index++)
    await session.appendMessage(chinese(index));
  return estimates;
}

describe("the token estimate recorded in the store", () => {
  it("a SQLite store created now counts Chinese with the multilingual estimate", async () => {
    const db = openSqlite(":memory:");
    const provider = new AgentSessionProvider(db, "s");
    expect(provider.getTokenEstimate()).toBe("multilingual");
    const estimates = await estimatesAfterAppends(Session.create(provider), 3);
    const messages = [0, 1, 2].map(chinese);
    expect(estimates.at(-1)).toBe(estimateMessageTokensMultilingual(messages));
    expect(estimates.at(-1)).toBeGreaterThan(estimateMessageTokens(messages));
  });

  it("a store written by an earlier schema version keeps the heuristic after it migrates", async () => {
    for (let version = 1; version < MIGRATIONS.length; version++) {
      const db = openSqlite(":memory:");
      db.sql`CREATE TABLE arbor_meta (key TEXT PRIMARY KEY, value TEXT)`;
      for (let step = 0; step < version; step++) MIGRATIONS[step]!(db);
      db.sql`INSERT INTO arbor_meta VALUES ('session_schema_version', ${String(version)})`;
      const provider = new AgentSessionProvider(db, "s");
      expect(provider.getTokenEstimate(), `version ${version}`).toBe(
        "heuristic",
      );
      const estimates = await estimatesAfterAppends(
        Session.create(provider),
        2,
      );
      expect(estimates.at(-1)).toBe(
        estimateMessageTokens([chinese(0), chinese(1)]),
      );
    }
  });

  it("databases lifted from agents@0.22 and agents@0.32 keep the heuristic", () => {
    const dir = mkdtempSync(join(tmpdir(), "arbor-tokens-"));
    try {
      for (const fixture of ["reference.db", "agents-032.db"]) {
        const file = join(dir, fixture);
        copyFileSync(
          new URL(`../legacy/__fixtures__/${fixture}`, import.meta.url),
          file,
        );
        const db = openSqlite(file);
        try {
          expect(new AgentSessionProvider(db).getTokenEstimate(), fixture).toBe(
            "heuristic",
          );
        } finally {
          db.close();
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("keeps the recorded estimate across reopening the store", () => {
    const db = openSqlite(":memory:");
    new AgentSessionProvider(db).getHistory();
    const again = new AgentSessionProvider(
      { sql: db.sql, transaction: db.transaction },
      "other",
    );
    expect(again.getTokenEstimate()).toBe("multilingual");
  });

  it("an in-memory store counts with the multilingual estimate", () => {
    expect(new InMemorySessionProvider().getTokenEstimate()).toBe(
      "multilingual",
    );
  });

  it("compactAfter's own counter wins over the store's estimate", async () => {
    const db = openSqlite(":memory:");
    const session = Session.create(db).compactAfter(1_000_000, {
      tokenCounter: () => 42,
    });
    const estimates = await estimatesAfterAppends(session, 1);
    expect(estimates).toEqual([42]);
  });
});

describe("counting per message", () => {
  it("a counter with a per-message form counts each appended message once, never the branch", async () => {
    const counted: string[] = [];
    let wholeCalls = 0;
    const whole = multilingualTokenCounter();
    const counter: SessionTokenCounter = Object.assign(
      (input: Parameters<SessionTokenCounter>[0]) => {
        wholeCalls++;
        return whole(input);
      },
      {
        perMessage: {
          message: (message: SessionMessage) => {
            counted.push(message.id);
            return estimateMessageTokensMultilingual([message]);
          },
          text: estimateStringTokensMultilingual,
        },
      },
    );
    const session = Session.create(openSqlite(":memory:")).compactAfter(
      1_000_000,
      { tokenCounter: counter },
    );
    const estimates = await estimatesAfterAppends(session, 20);
    expect(wholeCalls).toBe(0);
    expect(counted).toEqual(Array.from({ length: 20 }, (_, i) => `m${i}`));
    expect(estimates.at(-1)).toBe(
      estimateMessageTokensMultilingual(
        Array.from({ length: 20 }, (_, i) => chinese(i)),
      ),
    );
  });

  it("a whole-request counter without a per-message form still receives the whole branch", async () => {
    const sizes: number[] = [];
    const session = Session.create(openSqlite(":memory:")).compactAfter(
      1_000_000,
      {
        tokenCounter: ({ messages }) => {
          sizes.push(messages.length);
          return messages.length;
        },
      },
    );
    await estimatesAfterAppends(session, 3);
    expect(sizes).toEqual([1, 2, 3]);
  });

  it("multilingualTokenCounter() answers the sum of its per-message counts", () => {
    const counter = multilingualTokenCounter();
    const messages = [0, 1, 2].map(chinese);
    const total = counter({
      messages,
      systemPrompt: "你是一个助手。",
      contextBlocks: [],
    });
    const parts =
      messages.reduce((sum, m) => sum + counter.perMessage!.message(m), 0) +
      counter.perMessage!.text("你是一个助手。");
    expect(total).toBe(parts);
  });
});

describePostgres("the token estimate recorded in a PostgreSQL database", () => {
  it("a database Arbor creates records the multilingual estimate; an older Arbor's keeps the heuristic", async () => {
    const created = await createTestDatabase();
    const older = await createTestDatabase();
    try {
      expect(
        await new PostgresSessionProvider(created.pool).getTokenEstimate(),
      ).toBe("multilingual");
      // An older Arbor recorded no estimate; applying the schema again records none either.
      await older.pool.query(
        "DELETE FROM arbor_meta WHERE key = 'token_estimate'",
      );
      await applyPostgresSchema(older.pool);
      expect(
        await new PostgresSessionProvider(older.pool).getTokenEstimate(),
      ).toBe("heuristic");
    } finally {
      await created.drop();
      await older.drop();
    }
  });
});
