// AgentSessionProvider inside workerd, over Durable Object SQLite: the engine's authorizer, no
// `transaction()` on the store, `sql.exec` as the tagged template (the shape of an Agents SDK
// `Agent`). Guards the SQL the provider relies on there: RETURNING, json_each, octet_length,
// FTS5, sqlite_master reads and ALTER TABLE … RENAME in the legacy migration.
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCHEMA_VERSION } from "../../src/backends/sql/sql-schema.js";
import { SRC, transpileGraph } from "./support/transpile-graph.js";

const ENTRY = new URL("backends/sql/index.ts", SRC);
const SEARCH_ENTRY = new URL("backends/sql/sql-search-provider.ts", SRC);

const WORKER = `
import { AgentSessionProvider } from "./backends/sql/index.js";
import { AgentSearchProvider } from "./backends/sql/sql-search-provider.js";

const text = (id, body) => ({ id, role: "user", parts: [{ type: "text", text: body }] });

export class Store {
  constructor(ctx) { this.storage = ctx.storage.sql; }
  sql(strings, ...values) { return [...this.storage.exec(strings.join("?"), ...values)]; }

  async fetch(request) {
    const scenario = new URL(request.url).pathname.slice(1);
    try {
      return Response.json(await this[scenario]());
    } catch (error) {
      return Response.json({ error: String(error && error.stack || error) }, { status: 500 });
    }
  }

  async knowledge() {
    const kb = new AgentSearchProvider(this);
    kb.init("kb");
    await kb.set("billing", "Invoices are sent monthly by the billing service.");
    await kb.set("both", "The billing service owner is Mira.");
    await kb.set("tea", "The team drinks green tea.");
    return {
      question: await kb.search("Who is the owner of the billing service?"),
      none: await kb.search("When is the picnic?"),
    };
  }

  async tree() {
    const provider = new AgentSessionProvider(this, "s");
    const out = {};
    out.inserted = provider.appendMessage(text("a", "本番環境へのデプロイは金曜日です"));
    out.duplicate = provider.appendMessage(text("a", "again"));
    provider.appendMessage(text("b", "Развёртывание назначено на пятницу"));
    provider.appendMessage(text("c", "third"));
    provider.appendMessage(text("c2", "regenerated"), "b");
    provider.forSession("other").appendMessage(text("a", "same id elsewhere"));
    provider.updateMessage(text("ghost", "never stored"));
    const overlay = provider.addCompaction("summary", "a", "b", { tokensBefore: 10 });
    out.history = provider.getHistory().map((m) => m.id);
    out.branches = provider.getBranches("b").map((m) => m.id);
    out.search = ["金曜日", "пятницу", "never", 'NEAR( "x * ^:'].map((q) =>
      provider.searchMessages(q).map((hit) => hit.id),
    );
    out.stats = provider.getHistoryRowStats().map((row) => [row.id, row.bytes]);
    out.recent = (await provider.getRecentHistory(null, 1, 1)).messages.map(
      (m) => m.id,
    );
    provider.deleteMessages(["b"]);
    out.afterDelete = provider.getHistory().map((m) => m.id);
    out.removed = provider.deleteCompaction(overlay.id);
    // A delete marks its index row stale; the next search removes it.
    out.searchAfterDelete = provider.searchMessages("пятницу").map((hit) => hit.id);
    out.ftsLinked = this.sql\`SELECT COUNT(*) AS n FROM assistant_fts AS f
      JOIN assistant_messages AS m ON m.seq = f.rowid\`[0].n;
    out.ftsRows = this.sql\`SELECT COUNT(*) AS n FROM assistant_fts\`[0].n;
    provider.clearMessages();
    out.afterClear = provider.exportMessages().length;
    out.other = provider.forSession("other").getHistory().map((m) => m.parts[0].text);
    return out;
  }

  deep() {
    const provider = new AgentSessionProvider(this, "deep");
    provider.getLatestLeaf();
    for (let index = 0; index < 12000; index++) {
      this.sql\`INSERT INTO assistant_messages (id, session_id, parent_id, role, content)
        VALUES (\${"m" + index}, 'deep', \${index ? "m" + (index - 1) : null}, 'user', \${JSON.stringify(text("m" + index, "x"))})\`;
    }
    return { length: provider.getHistory().length, latest: provider.getLatestLeaf().id };
  }

  leafMoved() {
    // Two providers over one object: the second's append moves the first's cached leaf, so the
    // first's leaf statement refuses (json() raises inside CASE) and the full one chains on.
    const a = new AgentSessionProvider(this, "moved");
    const b = new AgentSessionProvider(this, "moved");
    a.appendMessage(text("a1", "one"));
    a.appendMessage(text("a2", "two"));
    b.appendMessage(text("b1", "three"));
    const after = a.writeMessages([{ message: text("a3", "four") }]);
    const duplicate = a.writeMessages([{ message: text("a3", "again") }]);
    return {
      after,
      duplicate,
      parents: this.sql\`SELECT id, parent_id FROM assistant_messages WHERE session_id = 'moved' ORDER BY seq\`
        .map((row) => [row.id, row.parent_id]),
      changes: this.sql\`SELECT COUNT(*) AS n FROM arbor_changes WHERE session_id = 'moved'\`[0].n,
    };
  }

  large() {
    // 200 messages of 20 KB: the first chunk of the path read (128 rows) is 2.5 MB of text,
    // over the 2 MB a Durable Object allows any string value.
    const body = (index) => "m" + index + " " + "z".repeat(20000);
    const linear = new AgentSessionProvider(this, "large");
    for (let index = 0; index < 200; index++) linear.appendMessage(text("m" + index, body(index)));
    // The same texts on a path whose parents were written after their children, so the read
    // takes the recursive query and its windows.
    const reversed = new AgentSessionProvider(this, "reversed");
    for (let index = 199; index >= 0; index--) {
      this.sql\`INSERT INTO assistant_messages (id, session_id, parent_id, role, content)
        VALUES (\${"r" + index}, 'reversed', \${index ? "r" + (index - 1) : null}, 'user', \${JSON.stringify(text("r" + index, body(index)))})\`;
    }
    const check = (provider, leaf) => {
      const history = provider.getHistory(leaf);
      return { length: history.length, intact: history.every((m, i) => m.parts[0].text === body(i)) };
    };
    return {
      linear: check(new AgentSessionProvider(this, "large")),
      reversed: check(reversed, "r199"),
      // The index catch-up joins texts the same way (500 rows, 10 MB, at first).
      search: linear.searchMessages("m150").map((hit) => hit.id),
    };
  }

  storageError() {
    const provider = new AgentSessionProvider(this, "s");
    provider.appendMessage(text("a", "first"));
    this.sql\`DROP TABLE assistant_messages\`;
    try {
      provider.getMessage("a");
      return { thrown: false };
    } catch (error) {
      return { code: error.code, cause: String(error.cause && error.cause.message) };
    }
  }

  legacy() {
    this.sql\`CREATE TABLE assistant_messages (id TEXT PRIMARY KEY, session_id TEXT NOT NULL DEFAULT '',
      parent_id TEXT, role TEXT NOT NULL, content TEXT NOT NULL, created_at DATETIME DEFAULT CURRENT_TIMESTAMP)\`;
    this.sql\`CREATE INDEX idx_assistant_msg_parent ON assistant_messages(parent_id)\`;
    this.sql\`CREATE VIRTUAL TABLE assistant_fts USING fts5(id UNINDEXED, session_id UNINDEXED, role UNINDEXED,
      content, tokenize='porter unicode61')\`;
    this.sql\`CREATE TABLE cf_agents_search_entries (label TEXT NOT NULL, key TEXT NOT NULL, content TEXT NOT NULL,
      created_at DATETIME DEFAULT CURRENT_TIMESTAMP, updated_at DATETIME DEFAULT CURRENT_TIMESTAMP, PRIMARY KEY (label, key))\`;
    this.sql\`INSERT INTO assistant_messages (id, parent_id, role, content, created_at)
      VALUES ('x2', 'x1', 'user', \${JSON.stringify(text("x2", "second"))}, '2026-01-01 00:00:00'),
             ('x1', NULL, 'user', \${JSON.stringify(text("x1", "金曜日にデプロイします"))}, '2026-01-01 00:00:00')\`;
    this.sql\`INSERT INTO assistant_fts (rowid, id, session_id, role, content) VALUES (9, 'ghost', '', 'user', 'phantom')\`;
    this.sql\`INSERT INTO cf_agents_search_entries (label, key, content, created_at, updated_at)
      VALUES ('kb', 'k', 'notes', '2026-01-01 00:00:01', '2026-01-01 00:00:02')\`;
    const provider = new AgentSessionProvider(this);
    return {
      records: provider.exportMessages().map((r) => [r.message.id, r.parentId, r.createdAt]),
      search: provider.searchMessages("金曜日").map((hit) => hit.id),
      phantom: provider.searchMessages("phantom"),
      entries: this.sql\`SELECT seq, key, created_at FROM cf_agents_search_entries\`,
      meta: this.sql\`SELECT key, value FROM arbor_meta\`,
    };
  }
}

export default {
  fetch(request, env) {
    const url = new URL(request.url);
    return env.STORE.get(env.STORE.idFromName(url.pathname)).fetch(request);
  },
};
`;

let worker: Miniflare;

beforeAll(() => {
  worker = new Miniflare({
    modules: [
      { type: "ESModule", path: "/worker/index.js", contents: WORKER },
      ...[
        ...new Map([...transpileGraph(ENTRY), ...transpileGraph(SEARCH_ENTRY)]),
      ].map(([path, contents]) => ({
        type: "ESModule" as const,
        path: `/worker/${path}`,
        contents,
      })),
    ],
    modulesRoot: "/worker",
    compatibilityDate: "2025-01-01",
    durableObjects: { STORE: { className: "Store", useSQLite: true } },
  });
});

afterAll(async () => {
  await worker?.dispose();
});

async function run(scenario: string): Promise<Record<string, unknown>> {
  const response = await worker.dispatchFetch(`http://localhost/${scenario}`);
  const body = (await response.json()) as Record<string, unknown>;
  expect(body.error).toBeUndefined();
  return body;
}

describe("AgentSessionProvider inside workerd (Durable Object SQLite)", () => {
  it("keeps the tree, search and repair rules on the DO engine, without transaction()", async () => {
    const out = await run("tree");
    expect(out).toMatchObject({
      inserted: true,
      duplicate: false,
      history: [expect.stringMatching(/^compaction_/), "c2"],
      branches: ["c", "c2"],
      search: [["a"], ["b"], [], []],
      recent: ["c2"],
      afterDelete: [expect.stringMatching(/^compaction_/), "c2"],
      removed: true,
      searchAfterDelete: [],
      afterClear: 0,
      other: ["same id elsewhere"],
    });
    expect(out.ftsRows).toBe(out.ftsLinked);
    expect((out.stats as [string, number][]).map(([id]) => id)).toEqual([
      "a",
      "b",
      "c2",
    ]);
  });

  it("ranks knowledge entries any-term on the DO engine: every-term matches first", async () => {
    expect(await run("knowledge")).toEqual({
      question:
        "[both]\nThe billing service owner is Mira.\n\n[billing]\nInvoices are sent monthly by the billing service.",
      none: null,
    });
  });

  it("appends on the cached leaf, and when another writer moved it, refuses and chains onto the new leaf", async () => {
    expect(await run("leafMoved")).toEqual({
      after: { inserted: [true], firstParentId: "b1" },
      duplicate: { inserted: [false], firstParentId: null },
      parents: [
        ["a1", null],
        ["a2", "a1"],
        ["b1", "a2"],
        ["a3", "b1"],
      ],
      changes: 4,
    });
  });

  it("reads a path deeper than the reference's 10,000-step cap", async () => {
    expect(await run("deep")).toEqual({ length: 12_000, latest: "m11999" });
  });

  it("reads a path of large messages: chunks over the 2 MB a DO allows a string are read in fewer rows (SQLITE_TOOBIG before)", async () => {
    expect(await run("large")).toEqual({
      linear: { length: 200, intact: true },
      reversed: { length: 200, intact: true },
      search: ["m150"],
    });
  });

  it("gives the engine's error Arbor's code at the provider's edge, the engine's as cause", async () => {
    // The DO engine names the SQLite code only in its message (sql-errors.ts reads it there).
    expect(await run("storageError")).toEqual({
      code: "STORAGE_ERROR",
      cause: expect.stringMatching(
        /no such table: assistant_messages.*SQLITE_ERROR/,
      ),
    });
  });

  it("migrates a reference database in place", async () => {
    const out = await run("legacy");
    expect(out.records).toEqual([
      ["x2", "x1", "2026-01-01T00:00:00.000Z"],
      ["x1", null, "2026-01-01T00:00:00.000Z"],
    ]);
    expect(out.search).toEqual(["x1"]);
    expect(out.phantom).toEqual([]);
    expect(out.entries).toEqual([
      { seq: 1, key: "k", created_at: "2026-01-01T00:00:01.000Z" },
    ]);
    expect(out.meta).toContainEqual({
      key: "session_schema_version",
      value: String(SCHEMA_VERSION),
    });
  });
});
