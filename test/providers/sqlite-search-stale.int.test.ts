// The SQLite search index after updates and deletes (docs/search.md, "Full-text search
// internals"): a write only records the stale `seq` in `arbor_fts_stale`; the next search rewrites
// those index rows, and an erase does at once. Real SQLite files; every table is scanned for old
// text (FTS5 shadow tables included).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SessionManager } from "../../src/session/index.js";
import type { SessionMessage } from "../../src/session/contracts/types.js";
import { SCHEMA_VERSION } from "../../src/backends/sql/sql-schema.js";
import { openSqlite, type SqliteHandle } from "../../src/sqlite/index.js";
import { dumpSqlite } from "../trust/support/sqlite-dump.js";

let folder = "";
let files = 0;
let words = 0;

beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), "arbor-stale-index-"));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function newFile(): string {
  return join(folder, `case-${++files}.db`);
}

/** A word no other message has; FTS5 keeps it unstemmed (it ends in a consonant after digits). */
function word(tag: string): string {
  return `zq${tag}${++words}w${Date.now() % 1000}k`;
}

/**
 * FTS5 stores a term after the first on a page as "shared prefix length + suffix", so a word may
 * not appear whole in a dump of its segments; its unique tail always does.
 */
function tail(text: string): string {
  return text.toLowerCase().slice(-8);
}

function text(id: string, body: string, role = "user"): SessionMessage {
  return { id, role, parts: [{ type: "text", text: body }] };
}

function staleSeqs(db: SqliteHandle): number[] {
  return db.sql<{
    seq: number;
  }>`SELECT seq FROM arbor_fts_stale ORDER BY seq`.map((row) => row.seq);
}

function seqOf(db: SqliteHandle, id: string): number {
  const [row] = db.sql<{ seq: number }>`
    SELECT seq FROM assistant_messages WHERE id = ${id}`;
  return row!.seq;
}

function expectTrace(db: SqliteHandle, texts: string[], present: boolean) {
  const dump = dumpSqlite(db).toLowerCase();
  for (const item of texts)
    expect(dump.includes(tail(item)), `trace of ${item}`).toBe(present);
}

function ids(hits: Array<{ id: string }>): string[] {
  return hits.map((hit) => hit.id).sort();
}

describe("SQLite search index: updates and deletes are indexed at the next search", () => {
  it("an update or delete records only the stale seq; the next search rewrites the index", async () => {
    const db = openSqlite(newFile());
    const manager = SessionManager.create(db);
    const { id } = await manager.create("stale");
    const session = manager.getSession(id);
    const [old, replacement, deleted] = [word("old"), word("new"), word("del")];
    await session.appendMessage(text("u1", `the ${old} plan`));
    await session.appendMessage(text("a1", `a ${deleted} note`, "assistant"));
    await session.appendMessage(text("u2", "the plan stays"));
    expect(ids(await session.search(old))).toEqual(["u1"]);
    const indexed = db.sql`SELECT rowid, content FROM assistant_fts ORDER BY rowid`;

    await session.updateMessage(text("u1", `the ${replacement} plan`));
    await session.deleteMessages(["a1"]);
    // No FTS5 write: the index is as the search left it, the stale seqs wait for the next one.
    expect(
      db.sql`SELECT rowid, content FROM assistant_fts ORDER BY rowid`,
    ).toEqual(indexed);
    expect(staleSeqs(db)).toEqual([1, 2]);

    expect(ids(await session.search(replacement))).toEqual(["u1"]);
    expect(await session.search(old)).toEqual([]);
    expect(await session.search(deleted)).toEqual([]);
    expect(ids(await session.search("plan"))).toEqual(["u1", "u2"]);
    expect(staleSeqs(db)).toEqual([]);
    expect(db.sql`SELECT rowid FROM assistant_fts ORDER BY rowid`).toEqual([
      { rowid: 1 },
      { rowid: 3 },
    ]);
    expectTrace(db, [replacement], true);
    expectTrace(db, [old, deleted], false);
    db.close();
  });

  it("an update of a message not yet indexed records nothing (the catch-up reads its content)", async () => {
    const db = openSqlite(newFile());
    const session = SessionManager.create(db).getSession("s");
    await session.appendMessage(text("u1", "first"));
    await session.updateMessage(text("u1", "second"));
    expect(staleSeqs(db)).toEqual([]);
    expect(ids(await session.search("second"))).toEqual(["u1"]);
    expect(await session.search("first")).toEqual([]);
    db.close();
  });

  it("SessionManager.search catches up the stale rows of every session first", async () => {
    const db = openSqlite(newFile());
    const manager = SessionManager.create(db);
    const a = await manager.create("a");
    const b = await manager.create("b");
    const [before, after] = [word("before"), word("after")];
    await manager.getSession(a.id).appendMessage(text("a1", before));
    await manager.getSession(b.id).appendMessage(text("b1", `${before} too`));
    expect(await manager.search(before)).toHaveLength(2);
    await manager.getSession(a.id).updateMessage(text("a1", after));
    await manager.getSession(b.id).deleteMessages(["b1"]);
    expect(staleSeqs(db)).toHaveLength(2);
    expect(ids(await manager.search(after))).toEqual(["a1"]);
    expect(await manager.search(before)).toEqual([]);
    expect(staleSeqs(db)).toEqual([]);
    db.close();
  });

  it("rewrites many stale rows by a merge: the new texts are found, old and deleted ones are gone", async () => {
    const db = openSqlite(newFile());
    const session = SessionManager.create(db).getSession("s");
    const olds = Array.from({ length: 40 }, (_, index) => word(`o${index}`));
    const news = olds.map((_, index) => word(`n${index}`));
    await session.appendAll(olds.map((old, index) => text(`m${index}`, old)));
    expect(await session.search(olds[0]!)).toHaveLength(1);
    for (let index = 0; index < 30; index++)
      await session.updateMessage(text(`m${index}`, news[index]!));
    await session.deleteMessages(["m35", "m36"]);
    expect(staleSeqs(db)).toHaveLength(32);
    for (const index of [0, 17, 29])
      expect(ids(await session.search(news[index]!))).toEqual([`m${index}`]);
    for (const index of [0, 17, 29, 35, 36])
      expect(await session.search(olds[index]!)).toEqual([]);
    expect(ids(await session.search(olds[33]!))).toEqual(["m33"]);
    expect(staleSeqs(db)).toEqual([]);
    expectTrace(db, news.slice(0, 30), true);
    expectTrace(db, [...olds.slice(0, 30), olds[35]!, olds[36]!], false);
    expect(
      db.sql`SELECT v FROM assistant_fts_config WHERE k = 'secure-delete'`,
    ).toEqual([{ v: 1 }]);
    db.sql`INSERT INTO assistant_fts (assistant_fts) VALUES ('integrity-check')`;
    db.close();
  });

  it("a clear marks the session's rows stale; the next search removes them", async () => {
    const db = openSqlite(newFile());
    const session = SessionManager.create(db).getSession("s");
    const gone = word("gone");
    await session.appendMessage(text("u1", gone));
    await session.appendMessage(text("u2", `${gone} again`));
    expect(await session.search(gone)).toHaveLength(2);
    await session.clearMessages();
    expect(staleSeqs(db)).toEqual([1, 2]);
    expect(await session.search(gone)).toEqual([]);
    expect(staleSeqs(db)).toEqual([]);
    expectTrace(db, [gone], false);
    db.close();
  });

  it("stale rows survive closing the file and are processed by the next search after reopening", async () => {
    const file = newFile();
    const first = openSqlite(file);
    const manager = SessionManager.create(first);
    const { id } = await manager.create("reopen");
    const [old, replacement, deleted] = [word("old"), word("new"), word("del")];
    const session = manager.getSession(id);
    await session.appendMessage(text("u1", old));
    await session.appendMessage(text("u2", deleted));
    await session.appendMessage(text("u3", "kept"));
    expect(await session.search(old)).toHaveLength(1);
    await session.updateMessage(text("u1", replacement));
    await session.deleteMessages(["u2"]);
    first.close();

    const second = openSqlite(file);
    expect(staleSeqs(second)).toEqual([1, 2]);
    const reopened = SessionManager.create(second).getSession(id);
    expect(ids(await reopened.search(replacement))).toEqual(["u1"]);
    expect(await reopened.search(old)).toEqual([]);
    expect(await reopened.search(deleted)).toEqual([]);
    expect(staleSeqs(second)).toEqual([]);
    expectTrace(second, [old, deleted], false);
    second.close();
  });

  it("an erase after an update leaves no trace of the old or the new text, nor stale rows", async () => {
    const db = openSqlite(newFile());
    const manager = SessionManager.create(db);
    const { id } = await manager.create("erase");
    const session = manager.getSession(id);
    const [old, replacement, other] = [word("old"), word("new"), word("oth")];
    await session.appendMessage(text("u1", `the ${old} plan`));
    await session.appendMessage(text("u2", `the ${other} plan`));
    expect(await session.search("plan")).toHaveLength(2);
    await session.updateMessage(text("u1", `the ${replacement} plan`));
    // The old text is still in the index's segments: only the next search or an erase removes it.
    expectTrace(db, [old], true);
    expect(staleSeqs(db)).toEqual([seqOf(db, "u1")]);

    const receipt = await manager.erase({ sessionId: id, messageIds: ["u1"] });
    expect(receipt.messages).toBe(1);
    expect(receipt.indexRows).toBe(1);
    expect(staleSeqs(db)).toEqual([]);
    expectTrace(db, [old, replacement], false);
    expectTrace(db, [other], true);
    expect(ids(await session.search("plan"))).toEqual(["u2"]);
    db.close();
  });

  it("a whole-session erase removes the index rows an earlier delete or update left stale", async () => {
    const db = openSqlite(newFile());
    const manager = SessionManager.create(db);
    const { id } = await manager.create("erase-all");
    const other = await manager.create("other");
    const session = manager.getSession(id);
    const [deleted, old, replacement, elsewhere, elsewhereNew] = [
      word("del"),
      word("old"),
      word("new"),
      word("els"),
      word("eln"),
    ];
    await session.appendMessage(text("u1", deleted));
    await session.appendMessage(text("u2", old));
    await manager.getSession(other.id).appendMessage(text("o1", elsewhere));
    expect(await manager.search("zq")).toEqual([]); // catches the index up
    expectTrace(db, [deleted, old, elsewhere], true);
    await session.deleteMessages(["u1"]);
    await session.updateMessage(text("u2", replacement));
    await manager.getSession(other.id).updateMessage(text("o1", elsewhereNew));
    expect(staleSeqs(db)).toHaveLength(3);

    await manager.erase({ sessionId: id });
    expect(staleSeqs(db)).toEqual([]);
    expectTrace(db, [deleted, old, replacement, elsewhere], false);
    // The other session's update was rewritten too, so it is found by its new text.
    expect(
      ids(await manager.getSession(other.id).search(elsewhereNew)),
    ).toEqual(["o1"]);
    db.close();
  });

  it("deleting a session drops the stale rows of its messages with their index rows", async () => {
    const db = openSqlite(newFile());
    const manager = SessionManager.create(db);
    const { id } = await manager.create("doomed");
    const session = manager.getSession(id);
    const [old, replacement] = [word("old"), word("new")];
    await session.appendMessage(text("u1", old));
    expect(await session.search(old)).toHaveLength(1);
    await session.updateMessage(text("u1", replacement));
    expect(staleSeqs(db)).toHaveLength(1);
    await manager.delete(id);
    expect(staleSeqs(db)).toEqual([]);
    expect(db.sql`SELECT rowid FROM assistant_fts`).toEqual([]);
    expectTrace(db, [old, replacement], false);
    db.close();
  });

  it("a store at schema version 7 gains the stale table on the next open", async () => {
    const file = newFile();
    const first = openSqlite(file);
    const session = SessionManager.create(first).getSession("s");
    await session.appendMessage(text("u1", "before the upgrade"));
    expect(await session.search("upgrade")).toHaveLength(1);
    first.sql`DROP TABLE arbor_fts_stale`;
    first.sql`UPDATE arbor_meta SET value = '7' WHERE key = 'session_schema_version'`;
    first.close();

    const second = openSqlite(file);
    const reopened = SessionManager.create(second).getSession("s");
    await reopened.updateMessage(text("u1", "after the upgrade"));
    expect(staleSeqs(second)).toEqual([1]);
    expect(ids(await reopened.search("after"))).toEqual(["u1"]);
    expect(await reopened.search("before")).toEqual([]);
    expect(
      second.sql`SELECT value FROM arbor_meta WHERE key = 'session_schema_version'`,
    ).toEqual([{ value: String(SCHEMA_VERSION) }]);
    second.close();
  });

  it("a store at schema version 8 re-indexes its tool-call messages, and only those, on the next open", async () => {
    const file = newFile();
    const first = openSqlite(file);
    const session = SessionManager.create(first).getSession("s");
    await session.appendMessage(text("u1", "make me a shop"));
    await session.appendMessage({
      id: "a1",
      role: "assistant",
      parts: [
        {
          type: "tool-bash",
          toolCallId: "c1",
          state: "output-available",
          input: { command: "npx create-next-app@latest shop" },
          output: "done",
        },
      ],
    });
    expect(ids(await session.search("create-next-app"))).toEqual(["a1"]);
    // As a version-8 store indexed it: no tool-call inputs.
    first.sql`UPDATE assistant_fts SET content = 'bash' WHERE rowid = ${seqOf(first, "a1")}`;
    first.sql`UPDATE arbor_meta SET value = '8' WHERE key = 'session_schema_version'`;
    expect(await session.search("create-next-app")).toEqual([]);
    first.close();

    const second = openSqlite(file);
    const reopened = SessionManager.create(second).getSession("s");
    await reopened.getHistory();
    expect(staleSeqs(second)).toEqual([seqOf(second, "a1")]);
    expect(ids(await reopened.search("create-next-app"))).toEqual(["a1"]);
    expect(ids(await reopened.search("shop")).sort()).toEqual(["a1", "u1"]);
    expect(staleSeqs(second)).toEqual([]);
    expect(
      second.sql`SELECT value FROM arbor_meta WHERE key = 'session_schema_version'`,
    ).toEqual([{ value: String(SCHEMA_VERSION) }]);
    second.close();
  });
});
