// The pure pieces of recall: hybrid fusion, snippets, argument checks, the fake embedder.
import { describe, expect, it } from "vitest";
import {
  AGREEMENT_PROBE,
  fuseRankings,
  RRF_K,
  SEMANTIC_WEIGHT,
  semanticAgreement,
} from "../../src/session/embeddings/fusion.js";
import { snippetOf } from "../../src/session/embeddings/snippet.js";
import {
  InMemorySessionProvider,
  Session,
  SessionManager,
} from "../../src/session/index.js";
import { openSqlite } from "../../src/sqlite/index.js";
import { fakeEmbedder } from "../../src/testing/index.js";

describe("hybrid fusion", () => {
  /** `count` keys named `prefix0`, `prefix1`, … */
  const keys = (prefix: string, count: number) =>
    Array.from({ length: count }, (_, n) => `${prefix}${n}`);

  it("measures agreement as text matches in the semantic top beyond chance", () => {
    const semantic = keys("s", 100);
    // Ten text matches in the first 20 of 100: chance would put 2 there.
    expect(semanticAgreement(semantic.slice(0, 10), semantic)).toBeCloseTo(8);
    // Ten spread evenly: what chance does.
    const spread = semantic.filter((_, n) => n % 10 === 0);
    expect(semanticAgreement(spread, semantic)).toBeCloseTo(0);
    // A ranking no longer than the probe shows no order; no text match, no agreement.
    expect(
      semanticAgreement(keys("s", 5), semantic.slice(0, AGREEMENT_PROBE)),
    ).toBe(0);
    expect(semanticAgreement([], semantic)).toBe(0);
  });

  it("keeps the text order when the vectors agree no more than chance, their finds after", () => {
    const text = ["t0", "t1", "t2"];
    // t2 is the semantic ranking's first: alone, a chance agreement.
    const semantic = ["t2", ...keys("s", 50)];
    const fused = fuseRankings(text, semantic);
    expect(fused.slice(0, 5).map(([key]) => key)).toEqual([
      "t0",
      "t1",
      "t2",
      "s0",
      "s1",
    ]);
    expect(fused[0]![1]).toBeCloseTo(1 / (RRF_K + 1));
    for (let i = 1; i < fused.length; i++)
      expect(fused[i]![1]).toBeLessThan(fused[i - 1]![1]);
  });

  it("adds w/(K + rank) for the semantic ranking when the vectors agree, so they break near ties", () => {
    // Forty text matches lead a semantic ranking of 100: t31 first, t30 last of them.
    const text = keys("t", 40);
    const rest = text.filter((key) => key !== "t30" && key !== "t31");
    const semantic = ["t31", ...rest, "t30", ...keys("s", 60)];
    const fused = fuseRankings(text, semantic);
    const scores = new Map(fused);
    expect(scores.get("t30")).toBeCloseTo(
      1 / (RRF_K + 31) + SEMANTIC_WEIGHT / (RRF_K + 40),
    );
    expect(scores.get("s0")).toBeCloseTo(SEMANTIC_WEIGHT / (RRF_K + 41));
    const order = fused.map(([key]) => key);
    // Far apart by words, the words decide; one place apart, the vectors do.
    expect(order[0]).toBe("t0");
    expect(order.indexOf("t31")).toBeLessThan(order.indexOf("t30"));
  });

  it("is the semantic ranking when no word matches", () => {
    expect(fuseRankings([], ["a", "b"]).map(([key]) => key)).toEqual([
      "a",
      "b",
    ]);
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
