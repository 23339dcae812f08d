// Re-imports: the same source conversation imported again is skipped (or replaced, or brought up
// to date), per owner; forks and compact-and-split do not inherit the identity; an erased
// conversation stays erased unless asked. On SQLite, in memory and on PostgreSQL (pg, postgres).
import { postgresBackend } from "../../src/postgres/index.js";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runCli, temporaryFolder } from "../cli/support/cli.js";
import {
  importConversations,
  importConversationsWithReport,
  parseConversations,
} from "../../src/formats/index.js";
import { SessionManager } from "../../src/session/index.js";
import {
  createTestDatabase,
  describePostgres,
  type TestDatabase,
} from "../providers/postgres-database.js";
import {
  branchesOf,
  fixture,
  FIXTURES,
  ids,
  memoryManager,
  sqliteManager,
} from "./support.js";

const BACKENDS: Array<[string, () => SessionManager]> = [
  ["SQLite", sqliteManager],
  ["memory", memoryManager],
];
const CHATGPT = fixture("chatgpt-conversations.json");
const parse = (text = CHATGPT) =>
  parseConversations(text, { fileName: "conversations.json" });

/** The export with one more message on the first conversation's current branch. */
function extended(): string {
  const conversations = JSON.parse(CHATGPT) as Array<Record<string, any>>;
  const trip = conversations[0]!;
  const leaf = trip.mapping[trip.current_node].parent;
  trip.mapping["u-0009"] = {
    id: "u-0009",
    parent: "a-0006",
    children: [],
    message: {
      id: "u-0009",
      author: { role: "user", name: null, metadata: {} },
      create_time: 1733041000,
      content: { content_type: "text", parts: ["And on Sunday?"] },
      status: "finished_successfully",
      metadata: {},
      recipient: "all",
    },
  };
  trip.mapping["a-0006"].children.push("u-0009");
  trip.current_node = "u-0009";
  expect(leaf).toBe("a-0006");
  return JSON.stringify(conversations);
}

/** Real session files whose first half is a fragment of the same conversation (same id). */
const SESSION_FILES = [
  "claude-code-session.jsonl",
  "pi-session.jsonl",
  "codex-rollout-tools.jsonl",
];

/** The file cut after half its lines: what an earlier copy of a session still running holds. */
function firstHalf(text: string): string {
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  return `${lines.slice(0, Math.ceil(lines.length / 2)).join("\n")}\n`;
}

/** Files whose second half, imported alone, names parents it lacks (a trimmed session file). */
const TRIMMED_FILES = ["pi-session.jsonl", "claude-code-session.jsonl"];

/**
 * The file with its first half cut off, the header line kept (Pi's session line): what a session
 * file trimmed to its last entries holds, whose first entries name parents it lacks.
 */
function trimmed(text: string): string {
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  return `${[lines[0]!, ...lines.slice(Math.ceil(lines.length / 2))].join("\n")}\n`;
}

/** Each conversation's root-to-leaf paths, in one order (siblings' insertion order aside). */
async function sortedTreesOf(manager: SessionManager) {
  const trees = await treesOf(manager);
  for (const paths of Object.values(trees))
    paths.sort((a, b) => a.join().localeCompare(b.join()));
  return trees;
}

/**
 * Each conversation's history as it reads (after the file's overlays: a Pi compaction), its
 * active leaf and stored message count.
 */
async function activeOf(manager: SessionManager) {
  const active: Record<
    string,
    { history: unknown[]; leaf: string | undefined; count: number }
  > = {};
  for (const info of await manager.list()) {
    const source = (await manager.listMetadata(info.id))["import.sourceId"]!;
    const session = manager.getSession(info.id);
    const history = await session.getHistory();
    active[source] = {
      history: history.map((message) => [message.role, message.parts]),
      leaf: ids(history).at(-1),
      count: await session.countMessages(),
    };
  }
  return active;
}

/** Every session's root-to-leaf paths, by source conversation: the trees the store holds. */
async function treesOf(manager: SessionManager) {
  const trees: Record<string, string[][]> = {};
  for (const info of await manager.list()) {
    const source = (await manager.listMetadata(info.id))["import.sourceId"]!;
    trees[source] = await branchesOf(manager, info.id);
  }
  return trees;
}

describe.each(BACKENDS)("re-imports on %s", (_name, makeManager) =>
  reimportCases(makeManager),
);

// The same cases on a real PostgreSQL server, through `pg` and through `postgres`.
describePostgres("re-imports on PostgreSQL", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  }, 60_000);
  afterAll(() => database?.drop());
  beforeEach(() => database.truncate());
  describe("through pg", () =>
    reimportCases(() => SessionManager.create(postgresBackend(database.pool))));
  describe("through postgres", () => {
    let sql: ReturnType<TestDatabase["postgresJs"]>;
    beforeAll(() => {
      sql = database.postgresJs();
    });
    reimportCases(() => SessionManager.create(postgresBackend(sql)));
  });
});

function reimportCases(makeManager: () => SessionManager): void {
  it("keeps the source in the metadata and skips the same conversations next time", async () => {
    const manager = makeManager();
    const first = await importConversationsWithReport(manager, parse());
    expect(first.created).toHaveLength(2);
    expect(await manager.listMetadata(first.created[0]!.id)).toMatchObject({
      "import.format": "chatgpt",
      "import.sourceId": expect.any(String),
      "import.fileName": "conversations.json",
      "import.key": expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const again = await importConversationsWithReport(manager, parse());
    expect(again.created).toEqual([]);
    expect(again.sessions).toEqual([]);
    expect(again.skipped).toEqual([
      {
        title: "Lisbon weekend plan",
        reason: "exists",
        sessionId: first.created[0]!.id,
      },
      {
        title: "Regex for dates",
        reason: "exists",
        sessionId: first.created[1]!.id,
      },
    ]);
    expect(await manager.list()).toHaveLength(2);
  });

  it("never matches across owners", async () => {
    const manager = makeManager();
    await importConversations(manager, parse(), { ownerId: "alice" });
    const bob = await importConversationsWithReport(manager, parse(), {
      ownerId: "bob",
    });
    expect(bob.created).toHaveLength(2);
    const unowned = await importConversationsWithReport(manager, parse());
    expect(unowned.created).toHaveLength(2);
    expect(await manager.list()).toHaveLength(6);
  });

  it("update adds only the new messages; replace swaps the session", async () => {
    const manager = makeManager();
    const [trip] = await importConversations(manager, parse());
    const before = await manager.getSession(trip!.id).countMessages();
    const update = await importConversationsWithReport(
      manager,
      parse(extended()),
      { existing: "update" },
    );
    expect(
      update.updated.map((entry) => [entry.session.id, entry.messagesAdded]),
    ).toEqual([[trip!.id, 1]]);
    // The other conversation has nothing new: skipped, its session left as it was.
    expect(update.skipped.map((entry) => [entry.title, entry.reason])).toEqual([
      ["Regex for dates", "exists"],
    ]);
    const session = manager.getSession(trip!.id);
    expect(await session.countMessages()).toBe(before + 1);
    expect(ids(await session.getHistory()).at(-1)).toBe("u-0009");
    // Nothing is written twice by another update.
    await importConversations(manager, parse(extended()), {
      existing: "update",
    });
    expect(await session.countMessages()).toBe(before + 1);

    const replace = await importConversationsWithReport(manager, parse(), {
      existing: "replace",
    });
    expect(replace.updated).toHaveLength(2);
    expect(await manager.get(trip!.id)).toBeNull();
    const sessions = await manager.list();
    expect(sessions).toHaveLength(2);
    const replaced = replace.updated[0]!.session.id;
    expect(await manager.getSession(replaced).countMessages()).toBe(before);
    // The replacement is the one found next time.
    expect(
      (await importConversationsWithReport(manager, parse())).skipped[0]!
        .sessionId,
    ).toBe(replaced);
  });

  it("a message array without ids is known by a hash of its content", async () => {
    const manager = makeManager();
    const text = fixture("openai-chat.json");
    const [info] = await importConversations(manager, parseConversations(text));
    expect((await manager.listMetadata(info!.id))["import.sourceId"]).toMatch(
      /^sha256:[0-9a-f]{64}$/,
    );
    expect(
      await importConversations(manager, parseConversations(text)),
    ).toEqual([]);
    const changed = JSON.parse(text) as {
      messages: Array<Record<string, unknown>>;
    };
    changed.messages.push({ role: "user", content: "One more thing." });
    expect(
      await importConversations(
        manager,
        parseConversations(JSON.stringify(changed)),
      ),
    ).toHaveLength(1);
  });

  it("forks and compact-and-split do not inherit the identity", async () => {
    const manager = makeManager();
    const [trip] = await importConversations(manager, parse());
    const fork = await manager.fork(trip!.id, "a-0002", "Fork");
    const split = await manager.compactAndSplit(trip!.id, "Summary", "Split");
    for (const info of [fork, split])
      expect(
        Object.keys(await manager.listMetadata(info.id)).filter((key) =>
          key.startsWith("import."),
        ),
      ).toEqual([]);
    // With the original gone, the next import creates it again: neither copy is that session.
    await manager.delete(trip!.id);
    const again = await importConversationsWithReport(manager, parse());
    expect(again.created.map((info) => info.name)).toEqual([
      "Lisbon weekend plan",
    ]);
  });

  it("an erased conversation is not brought back unless asked", async () => {
    const manager = makeManager();
    const [trip] = await importConversations(manager, parse());
    await manager.erase({ sessionId: trip!.id });
    const again = await importConversationsWithReport(manager, parse());
    expect(again.created).toEqual([]);
    expect(again.skipped.map((entry) => [entry.title, entry.reason])).toEqual([
      ["Lisbon weekend plan", "erased"],
      ["Regex for dates", "exists"],
    ]);
    const restored = await importConversationsWithReport(manager, parse(), {
      restoreErased: true,
    });
    expect(restored.created.map((info) => info.name)).toEqual([
      "Lisbon weekend plan",
    ]);
    // Brought back, it is an imported conversation like any other again.
    expect(
      (await importConversationsWithReport(manager, parse())).skipped.map(
        (entry) => entry.reason,
      ),
    ).toEqual(["exists", "exists"]);
  });

  it.each(SESSION_FILES)(
    "a fragment of %s imported first does not hide the conversation: the rest is merged by message id, whichever file comes first",
    async (file) => {
      const full = fixture(file);
      const parse = (text: string) =>
        parseConversations(text, { fileName: file });
      const reference = memoryManager();
      await importConversations(reference, parse(full));
      const expected = await treesOf(reference);

      const manager = makeManager();
      const first = await importConversationsWithReport(
        manager,
        parse(firstHalf(full)),
      );
      expect(first.created.length).toBeGreaterThan(0);
      const second = await importConversationsWithReport(manager, parse(full));
      // The fragment's session is brought up to date, not skipped, and nothing is written twice.
      expect(second.updated.map((entry) => entry.session.id)).toEqual([
        first.created[0]!.id,
      ]);
      expect(second.updated[0]!.messagesAdded).toBeGreaterThan(0);
      expect(await treesOf(manager)).toEqual(expected);
      // One root per conversation, as in the file.
      for (const paths of Object.values(await treesOf(manager)))
        expect(new Set(paths.map((path) => path[0])).size).toBe(1);

      // The other order: the whole file first, then the fragment adds nothing.
      const other = makeManager();
      await importConversations(other, parse(full));
      const fragment = await importConversationsWithReport(
        other,
        parse(firstHalf(full)),
      );
      expect([fragment.messagesWritten, fragment.created]).toEqual([0, []]);
      expect(await treesOf(other)).toEqual(expected);
    },
  );

  it.each(TRIMMED_FILES)(
    "a trimmed %s imported with lenient first, then the whole file: each stored orphan goes under its parent (one root, the whole history, nothing twice)",
    async (file) => {
      const full = fixture(file);
      const reference = memoryManager();
      await importConversations(
        reference,
        parseConversations(full, { fileName: file }),
      );

      const manager = makeManager();
      const first = await importConversationsWithReport(
        manager,
        parseConversations(trimmed(full), { fileName: file, lenient: true }),
      );
      expect(first.created.length).toBeGreaterThan(0);
      // The fragment's first messages are stored as roots, each marked with the parent it lacked.
      const [fragment] = first.created;
      const roots = (await manager.exportSession(fragment!.id)).messages.filter(
        (record) => record.parentId === null,
      );
      expect(roots.length).toBeGreaterThan(0);
      for (const { message } of roots)
        expect(message.metadata).toMatchObject({
          missingParentId: expect.any(String),
        });

      const second = await importConversationsWithReport(
        manager,
        parseConversations(full, { fileName: file }),
      );
      expect(second.updated.map((entry) => entry.session.id)).toEqual([
        fragment!.id,
      ]);
      // The same tree as the whole file imported alone, one root per conversation, the active
      // branch where the file puts it, and every message once.
      expect(await sortedTreesOf(manager)).toEqual(
        await sortedTreesOf(reference),
      );
      for (const paths of Object.values(await treesOf(manager)))
        expect(new Set(paths.map((path) => path[0])).size).toBe(1);
      expect(await activeOf(manager)).toEqual(await activeOf(reference));
    },
  );

  it("ten imports of one file at once make one session per conversation (no key: the conversation's identity)", async () => {
    const manager = makeManager();
    const reports = await Promise.all(
      Array.from({ length: 10 }, () =>
        importConversationsWithReport(manager, parse()),
      ),
    );
    const sessions = await manager.list();
    expect(sessions.map((info) => info.name).sort()).toEqual([
      "Lisbon weekend plan",
      "Regex for dates",
    ]);
    expect(reports.flatMap((report) => report.created)).toHaveLength(2);
    // Every other import names the sessions the first one made.
    for (const report of reports)
      for (const skipped of report.skipped)
        expect(sessions.map((info) => info.id)).toContain(skipped.sessionId);
  });
}

describe("the tombstone on SQLite", () => {
  it("holds a hash, never the conversation's id or title", async () => {
    const { openSqlite } = await import("../../src/sqlite/index.js");
    const sql = openSqlite(":memory:");
    const manager = SessionManager.create(sql);
    const [trip] = await importConversations(manager, parse());
    const sourceId = (await manager.listMetadata(trip!.id))["import.sourceId"]!;
    await manager.erase({ sessionId: trip!.id });
    const rows = sql.sql<{ session_id: string; key: string; value: string }>`
      SELECT session_id, key, value FROM assistant_config`;
    const text = JSON.stringify([...rows]);
    expect(text).toContain("erased:");
    expect(text).not.toContain(sourceId);
    expect(text).not.toContain("Lisbon");
  });
});

// A trimmed file through the CLI (`arbor import --lenient`), then the whole file: one tree.
describe("arbor import of a trimmed file with --lenient, then the whole file", () => {
  const folder = temporaryFolder();
  afterAll(() => folder.remove());

  it.each(TRIMMED_FILES)(
    "%s: one root per conversation, every message once",
    async (file) => {
      const reference = memoryManager();
      await importConversations(
        reference,
        parseConversations(fixture(file), { fileName: file }),
      );
      const expected = await sortedTreesOf(reference);
      const part = join(folder.path, `trimmed-${file}`);
      writeFileSync(part, trimmed(fixture(file)));
      const db = join(folder.path, `trimmed-${file}.db`);
      for (const args of [[part, "--lenient"], [join(FIXTURES, file)]]) {
        const run = await runCli(["import", ...args, "--db", db]);
        expect(run.code, run.stderr).toBe(0);
      }
      const { openSqlite } = await import("../../src/sqlite/index.js");
      const sql = openSqlite(db);
      try {
        const manager = SessionManager.create(sql);
        expect(await sortedTreesOf(manager)).toEqual(expected);
        expect(await activeOf(manager)).toEqual(await activeOf(reference));
      } finally {
        sql.close();
      }
    },
  );
});

// The same through the CLI, `arbor import` as users run it (a subprocess of the built bin).
describe("arbor import of a fragment, then the whole file", () => {
  const folder = temporaryFolder();
  afterAll(() => folder.remove());

  it.each(["pi-session.jsonl", "codex-rollout-tools.jsonl"])(
    "%s: one session with every message, whichever file comes first",
    async (file) => {
      const full = join(FIXTURES, file);
      const half = join(folder.path, `half-${file}`);
      writeFileSync(half, firstHalf(fixture(file)));
      const expected = (
        await importConversationsWithReport(
          memoryManager(),
          parseConversations(fixture(file), { fileName: file }),
        )
      ).messagesWritten;
      for (const [order, files] of [
        ["fragment first", [half, full]],
        ["whole first", [full, half]],
      ] as const) {
        const db = join(folder.path, `${order}-${file}.db`);
        for (const path of files) {
          const run = await runCli(["import", path, "--db", db]);
          expect(run.code, run.stderr).toBe(0);
        }
        const list = await runCli(["sessions", "list", "--db", db, "--json"]);
        const { sessions } = JSON.parse(list.stdout) as {
          sessions: Array<{ id: string; messageCount: number }>;
        };
        expect({ order, counts: sessions.map((s) => s.messageCount) }).toEqual({
          order,
          counts: [expected],
        });
      }
    },
  );
});
