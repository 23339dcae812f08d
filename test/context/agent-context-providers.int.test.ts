// The built-in providers over SQLite: AgentContextProvider, AgentSearchProvider, and status
// broadcasts of sessions over a `sql` store with `broadcast`.
import { describe, expect, it } from "vitest";
import {
  AgentContextProvider,
  AgentSearchProvider,
  Session,
} from "../../src/session/index.js";
import { openSqlite } from "../../src/sqlite/index.js";
import { entryKey } from "../../src/session/context/tools/index.js";

describe("AgentContextProvider", () => {
  it("keeps one row per key; init sets the key only when the constructor did not", async () => {
    const db = openSqlite(":memory:");
    const named = new AgentContextProvider(db, "memory_s1");
    named.init("memory");
    await named.set("fact one");
    const unnamed = new AgentContextProvider(db);
    unnamed.init("memory");
    expect(await unnamed.get()).toBeNull();
    await unnamed.set("global");
    expect(await new AgentContextProvider(db, "memory_s1").get()).toBe(
      "fact one",
    );
    const rows = db.sql<{
      label: string;
    }>`SELECT label FROM cf_agents_context_blocks ORDER BY label`;
    expect(rows.map((row) => row.label)).toEqual(["memory", "memory_s1"]);
  });
});

describe("AgentSearchProvider", () => {
  it("finds entries per term in any language, including CJK words inside sentences", async () => {
    const db = openSqlite(":memory:");
    const kb = new AgentSearchProvider(db);
    kb.init("kb");
    expect(await kb.get()).toBeNull();
    await kb.set("deploy", "The production deployment happens on Friday.");
    await kb.set("ru", "Пользователь любит зелёный чай по утрам.");
    await kb.set("ja", "本番環境へのデプロイは金曜日です");
    await kb.set("zh", "用户喜欢喝咖啡");
    expect(await kb.get()).toBe("4 entries indexed.");
    expect(await kb.search("friday deployment")).toBe(
      "[deploy]\nThe production deployment happens on Friday.",
    );
    expect(await kb.search("чай")).toBe(
      "[ru]\nПользователь любит зелёный чай по утрам.",
    );
    expect(await kb.search("金曜日")).toBe(
      "[ja]\n本番環境へのデプロイは金曜日です",
    );
    expect(await kb.search("咖啡")).toBe("[zh]\n用户喜欢喝咖啡");
    // Any term counts: "NOT" is an ordinary word, and the entry holding "Friday" is found.
    expect(await kb.search("Friday NOT")).toBe(
      "[deploy]\nThe production deployment happens on Friday.",
    );
    expect(await kb.search("Saturday NOT")).toBeNull();
    for (const query of ["", "   ", '"', "AND OR", "*", "NEAR(", "a:b ^c"]) {
      expect(await kb.search(query)).toBeNull();
    }
  });

  it("answers a question with the entry holding its keywords (stop and question words dropped, stems matched)", async () => {
    const db = openSqlite(":memory:");
    const kb = new AgentSearchProvider(db);
    kb.init("kb");
    await kb.set("deploy", "Production deployments happen on Friday.");
    await kb.set("tea", "The team drinks green tea.");
    expect(await kb.search("When do we deploy to production?")).toBe(
      "[deploy]\nProduction deployments happen on Friday.",
    );
    // An irregular verb is widened to its forms, as in message search.
    await kb.set("trip", "Caroline went to Lisbon in May.");
    expect(await kb.search("Where did Caroline go?")).toBe(
      "[trip]\nCaroline went to Lisbon in May.",
    );
  });

  it("ranks the entry matching every term first, then those matching some", async () => {
    const db = openSqlite(":memory:");
    const kb = new AgentSearchProvider(db);
    kb.init("kb");
    await kb.set(
      "billing",
      "Invoices are sent monthly by the billing service.",
    );
    await kb.set("both", "The billing service owner is Mira.");
    await kb.set("owner", "Tomasz is the owner of search; owner of owners.");
    const result = (await kb.search(
      "Who is the owner of the billing service?",
    ))!;
    expect(result.split("\n\n").map((entry) => entry.split("\n")[0])).toEqual([
      "[both]",
      "[billing]",
      "[owner]",
    ]);
  });

  it("finds the entries holding a query made only of stop words, as message search does", async () => {
    const db = openSqlite(":memory:");
    const kb = new AgentSearchProvider(db);
    kb.init("kb");
    await kb.set("hamlet", "to be or not to be");
    await kb.set("kiwi", "kiwi");
    expect(await kb.search("not")).toBe("[hamlet]\nto be or not to be");
    expect(await kb.search("the")).toBeNull();
  });

  it("updates an entry in place, deletes it, and isolates labels", async () => {
    const db = openSqlite(":memory:");
    const kb = new AgentSearchProvider(db);
    kb.init("kb");
    const other = new AgentSearchProvider(db);
    other.init("other");
    await kb.set("tea", "green tea");
    await kb.set("tea", "black tea");
    await other.set("tea", "green tea elsewhere");
    expect(await kb.search("green")).toBeNull();
    expect(await kb.search("black")).toBe("[tea]\nblack tea");
    await kb.delete("tea");
    expect(await kb.get()).toBeNull();
    expect(await other.search("green")).toBe("[tea]\ngreen tea elsewhere");
    const fts = db.sql<{
      count: number;
    }>`SELECT COUNT(*) AS count FROM cf_agents_search_fts`;
    expect(fts[0]!.count).toBe(1);
  });

  it("returns at most 10 results, best first", async () => {
    const db = openSqlite(":memory:");
    const kb = new AgentSearchProvider(db);
    kb.init("kb");
    for (let index = 0; index < 15; index++)
      await kb.set(`k${index}`, `alpha entry ${index}`);
    await kb.set("best", "alpha alpha alpha");
    const result = (await kb.search("alpha"))!;
    expect(result.split("\n\n")).toHaveLength(10);
    expect(result.startsWith("[best]")).toBe(true);
  });
});

describe("status broadcast on a sql store", () => {
  it("broadcasts idle events as JSON strings with a token estimate after every write", async () => {
    const db = openSqlite(":memory:");
    const sent: string[] = [];
    const agent = {
      sql: db.sql,
      transaction: db.transaction,
      broadcast: (message: string) => sent.push(message),
    };
    const session = Session.create(agent).forSession("s");
    const heard: unknown[] = [];
    session.onStatus((event) => heard.push(event));
    await session.appendMessage({
      id: "m1",
      role: "user",
      parts: [{ type: "text", text: "Hello world" }],
    });
    await session.updateMessage({
      id: "m1",
      role: "user",
      parts: [{ type: "text", text: "Hello there world" }],
    });
    expect(sent.map((message) => JSON.parse(message))).toEqual([
      {
        type: "cf_agent_session",
        phase: "idle",
        tokenEstimate: 7,
        tokenThreshold: null,
      },
      {
        type: "cf_agent_session",
        phase: "idle",
        // A new store counts with the multilingual estimate (docs/token-estimation.md).
        tokenEstimate: 8,
        tokenThreshold: null,
      },
    ]);
    expect(heard).toEqual(sent.map((message) => JSON.parse(message)));
  });

  it("sessions over a SessionProvider never broadcast, but onStatus listeners still hear events", async () => {
    const db = openSqlite(":memory:");
    const { AgentSessionProvider } = await import("../../src/session/index.js");
    const session = Session.create(new AgentSessionProvider(db, "s"));
    const heard: Array<{ tokenEstimate?: number }> = [];
    session.onStatus((event) =>
      heard.push(event as { tokenEstimate?: number }),
    );
    await session.appendMessage({
      id: "m1",
      role: "user",
      parts: [{ type: "text", text: "Hi" }],
    });
    expect(heard).toEqual([
      {
        type: "cf_agent_session",
        phase: "idle",
        tokenEstimate: 0,
        tokenThreshold: null,
      },
    ]);
  });
});

describe("entry keys of keyed set_context writes", () => {
  it("derives the key from the title, else from the content plus its FNV-1a hash", () => {
    expect(entryKey("anything", "Pirate style")).toBe("pirate-style");
    expect(entryKey("no key")).toMatch(/^no-key-[0-9a-z]+$/);
    expect(entryKey("用户喜欢咖啡")).toMatch(/^entry-[0-9a-z]+$/);
    expect(entryKey("用户喜欢咖啡", "  ")).toBe(entryKey("用户喜欢咖啡"));
    expect(entryKey("x", "咖啡")).toMatch(/^entry-[0-9a-z]+$/);
    // FNV-1a of "a" is 0xe40c292c; base 36 of that.
    expect(entryKey("a")).toBe(`a-${(0xe40c292c).toString(36)}`);
  });
});
