// The pure pieces of recall: reciprocal rank fusion, snippets, argument checks, the fake embedder.
import { describe, expect, it } from "vitest";
import {
  reciprocalRankFusion,
  RRF_K,
} from "../../src/session/embeddings/fusion.js";
import { snippetOf } from "../../src/session/embeddings/snippet.js";
import {
  InMemorySessionProvider,
  Session,
  SessionManager,
} from "../../src/session/index.js";
import { openSqlite } from "../../src/sqlite/index.js";
import { fakeEmbedder } from "../../src/testing/index.js";

describe("reciprocal rank fusion", () => {
  it("adds 1/(K + rank) per ranking, so an item high in both wins", () => {
    const scores = reciprocalRankFusion([
      ["a", "b", "c"],
      ["c", "b"],
    ]);
    expect(scores.get("a")).toBeCloseTo(1 / (RRF_K + 1));
    expect(scores.get("b")).toBeCloseTo(2 / (RRF_K + 2));
    expect(scores.get("c")).toBeCloseTo(1 / (RRF_K + 3) + 1 / (RRF_K + 1));
    const order = [...scores.entries()]
      .sort((x, y) => y[1] - x[1])
      .map(([k]) => k);
    expect(order).toEqual(["c", "b", "a"]);
  });
});

describe("snippets", () => {
  it("marks every term occurrence, case-insensitively, around the first match", () => {
    const long = `${"x".repeat(200)} The Deploy is Friday; deploy early ${"y".repeat(200)}`;
    const snippet = snippetOf(long, "deploy friday");
    expect(snippet).toContain("«Deploy» is «Friday»; «deploy» early");
    expect(snippet.startsWith("…")).toBe(true);
    expect(snippet.endsWith("…")).toBe(true);
  });

  // Regression: every query word was marked as a substring, so "where is the offsite" marked
  // «the», «is» inside "Lisbon" and «in» inside "booking".
  it("marks only the words search ranks by, at word starts, with short endings", () => {
    const snippet = snippetOf(
      "Maria will handle the venue booking in Lisbon; she booked it",
      "Where is the venue booking? Who books it",
    );
    expect(snippet).toBe(
      "Maria will handle the «venue» «booking» in Lisbon; she «booked» it",
    );
    expect(snippetOf("东京的会议很顺利", "会议")).toBe("东京的«会议»很顺利");
    expect(snippetOf("We went to the lake", "when did we go to the lake")).toBe(
      "We «went» to the «lake»",
    );
  });

  it("is the text's beginning when it holds no term (a match by meaning)", () => {
    expect(snippetOf("We ship on Friday", "launch")).toBe("We ship on Friday");
  });
});

describe("withEmbeddings() arguments", () => {
  it.each([
    [42, {}],
    [{ doEmbed: 1 }, {}],
    [async () => [], { dimensions: 0 }],
    [async () => [], { batchSize: 1.5 }],
    [async () => [], { model: "" }],
    [async () => [], { leaseMs: 0 }],
  ])("INVALID_ARGUMENT for %o %o", (embedder, options) => {
    expect(() =>
      SessionManager.inMemory().withEmbeddings(embedder as never, options),
    ).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
  });

  it("a custom backend without storage: NOT_SUPPORTED on first use", async () => {
    const memory = SessionManager.inMemory();
    const custom = new SessionManager({
      registry: (memory as unknown as { host: { registry: never } }).host
        .registry,
      openSession: (id) => memory.getSession(id),
    }).withEmbeddings(fakeEmbedder());
    await expect(custom.flushEmbeddings()).rejects.toMatchObject({
      code: "NOT_SUPPORTED",
    });
    await expect(custom.removeEmbeddings()).rejects.toMatchObject({
      code: "NOT_SUPPORTED",
    });
  });
});

describe("manager.removeEmbeddings()", () => {
  it("on a store that never embedded: removes nothing and creates nothing", async () => {
    const db = openSqlite(":memory:");
    const manager = SessionManager.create(db);
    const { id } = await manager.create("plain");
    await manager.getSession(id).appendMessage({
      id: "m1",
      role: "user",
      parts: [{ type: "text", text: "We ship on Friday" }],
    });
    expect(await manager.removeEmbeddings()).toEqual({ vectors: 0, queued: 0 });
    expect(
      db.sql`SELECT name FROM sqlite_master WHERE name LIKE 'arbor_embed%'`,
    ).toEqual([]);
    expect(await SessionManager.inMemory().removeEmbeddings()).toEqual({
      vectors: 0,
      queued: 0,
    });
  });
});

describe("the SQLite embedding triggers", () => {
  it("of an older version (generation 1 for every new row) are replaced", async () => {
    const db = openSqlite(":memory:");
    const manager = SessionManager.create(db);
    const { id } = await manager.create("old triggers");
    // The tables and enqueueing trigger as an earlier release created them.
    db.sql`CREATE TABLE arbor_embedding_queue (
      session_id TEXT NOT NULL, kind TEXT NOT NULL, item_id TEXT NOT NULL,
      gen INTEGER NOT NULL DEFAULT 1, attempts INTEGER NOT NULL DEFAULT 0,
      next_at INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (session_id, kind, item_id))`;
    db.sql`CREATE TRIGGER arbor_embed_message_insert
      AFTER INSERT ON assistant_messages BEGIN
        INSERT INTO arbor_embedding_queue (session_id, kind, item_id)
        VALUES (NEW.session_id, 'message', NEW.id)
        ON CONFLICT DO UPDATE SET gen = gen + 1, attempts = 0, next_at = 0;
      END`;
    await manager.withEmbeddings(fakeEmbedder()).flushEmbeddings();
    const triggers = db.sql<{ name: string; sql: string }>`
      SELECT name, sql FROM sqlite_master WHERE type = 'trigger'
        AND name LIKE 'arbor_embed%' ORDER BY name`;
    expect(triggers.map((t) => t.name)).toEqual([
      "arbor_embed_message_delete",
      "arbor_embed_message_insert",
      "arbor_embed_message_update",
      "arbor_embed_summary_delete",
      "arbor_embed_summary_insert",
    ]);
    expect(
      triggers
        .filter((t) => t.sql.includes("INSERT INTO arbor_embedding_queue"))
        .every((t) => t.sql.includes("random()")),
    ).toBe(true);
    // Written through a manager without embeddings, so no worker takes the row away.
    await SessionManager.create(db)
      .getSession(id)
      .appendMessage({
        id: "m1",
        role: "user",
        parts: [{ type: "text", text: "We ship on Friday" }],
      });
    const rows = db.sql<{ gen: number }>`SELECT gen FROM arbor_embedding_queue`;
    expect(rows).toHaveLength(1);
    expect(rows[0]!.gen).not.toBe(1);
  });
});

describe("Session.withEmbeddings() without a manager", () => {
  it.each([
    ["a SQLite store", () => Session.create(openSqlite(":memory:"))],
    [
      "an InMemorySessionProvider",
      () => Session.create(new InMemorySessionProvider()),
    ],
  ])("embeds and finds by meaning over %s", async (_, open) => {
    const session = open().withEmbeddings(fakeEmbedder());
    await session.appendMessage({
      id: "m1",
      role: "user",
      parts: [{ type: "text", text: "We ship on Friday" }],
    });
    await session.flushEmbeddings();
    const hits = await session.search("launch", { scope: "branch" });
    expect(hits).toMatchObject([
      {
        id: "m1",
        matched: { text: false, semantic: true },
        onActiveBranch: true,
      },
    ]);
  });
});

describe("manager.withEmbeddings()", () => {
  it("reaches sessions the manager already has open", async () => {
    const manager = SessionManager.inMemory();
    const { id } = await manager.create("early");
    const session = manager.getSession(id);
    await session.appendMessage({
      id: "m1",
      role: "user",
      parts: [{ type: "text", text: "We ship on Friday" }],
    });
    manager.withEmbeddings(fakeEmbedder());
    expect(manager.getSession(id)).toBe(session);
    await session.flushEmbeddings();
    const [hit] = await session.search("launch");
    expect(hit).toMatchObject({ id: "m1", matched: { semantic: true } });
  });
});

describe("a text the embedder always rejects", () => {
  it("holds back only itself: the batch is split after two failures", async () => {
    const embed = fakeEmbedder();
    const manager = SessionManager.inMemory().withEmbeddings(async (texts) => {
      if (texts.some((t) => t.includes("POISON"))) throw new Error("too long");
      return embed(texts);
    });
    const { id } = await manager.create("poison");
    const session = manager.getSession(id);
    for (const [n, body] of ["We ship", "POISON", "The cat"].entries())
      await session.appendMessage({
        id: `m${n}`,
        role: "user",
        parts: [{ type: "text", text: body }],
      });
    await expect(session.flushEmbeddings()).rejects.toThrow("too long");
    const hits = await session.search("launch kitten", { mode: "semantic" });
    expect(hits.map((hit) => hit.id).sort()).toEqual(["m0", "m2"]);
  }, 30_000);
});

describe("the fake deterministic embedder", () => {
  it("is deterministic and maps synonyms to the same dimensions", async () => {
    const embed = fakeEmbedder({ dimensions: 64 });
    const [a, b, c] = await embed(["ship", "launch", "kitten"]);
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    expect(await embed(["ship"])).toEqual([a]);
    expect(a).toHaveLength(64);
  });
});
