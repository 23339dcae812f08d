// Messages over the row limit on a SQL-tag store (docs/behavior/storage.md): split over
// continuation rows of at most 1.5 MiB, joined on every read, deleted with their message. The
// conformance suite (src/testing/spec/large-messages.ts) checks what every backend reads back;
// these cases count the rows SQLite holds.
import { describe, expect, it } from "vitest";
import type { SessionMessage } from "../../src/session/contracts/types.js";
import { SessionManager } from "../../src/session/manager/session-manager.js";
import {
  CHUNK_MAX_BYTES,
  readContentsByIds,
} from "../../src/backends/sql/sql-message-chunks.js";
import { AgentSessionProvider } from "../../src/backends/sql/index.js";
import {
  MIGRATIONS,
  SCHEMA_VERSION_KEY,
} from "../../src/backends/sql/sql-schema.js";
import { Session } from "../../src/session/facade/session.js";
import { openSqlite } from "../../src/sqlite/open-sqlite.js";

const NEEDLE = "zebracornium";
const TAIL_WORD = "tailwordium";

describe("SQLite: messages split over continuation rows", () => {
  it("splits a 20 MB message at character boundaries into rows of at most 1.5 MiB", async () => {
    const database = openSqlite(":memory:");
    const session = Session.create(database).withRowSizeLimit(false);
    const big = largeMessage("big", 20_000_000);
    await session.appendMessage(big);
    const json = JSON.stringify(big);
    const [head] = database.sql<{ bytes: number; chunked_bytes: number }>`
      SELECT octet_length(content) AS bytes, chunked_bytes FROM assistant_messages`;
    expect(head!.chunked_bytes).toBe(Buffer.byteLength(json));
    expect(head!.bytes).toBeLessThanOrEqual(CHUNK_MAX_BYTES);
    const pieces = database.sql<{ idx: number; bytes: number }>`
      SELECT idx, octet_length(data) AS bytes FROM assistant_message_chunks ORDER BY idx`;
    expect(pieces.map((piece) => piece.idx)).toEqual(
      pieces.map((_, index) => index + 1),
    );
    const sizes = [head!.bytes, ...pieces.map((piece) => piece.bytes)];
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(
      Buffer.byteLength(json),
    );
    expect(sizes.every((size) => size <= CHUNK_MAX_BYTES)).toBe(true);
    // A piece shorter than the maximum (the last one aside): the next character did not fit whole.
    expect(sizes.slice(0, -1).some((size) => size < CHUNK_MAX_BYTES)).toBe(
      true,
    );
    expect(JSON.stringify(await session.getMessage("big"))).toBe(json);
    const [stat] = (await session.getHistoryRowStats())!;
    expect(stat!.bytes).toBe(Buffer.byteLength(json));
    database.close();
  });

  it("stores ordinary messages in one row, with no continuation", () => {
    const database = openSqlite(":memory:");
    const provider = new AgentSessionProvider(database, "s");
    provider.appendMessage(textMessage("m", "hello"));
    expect(database.sql`SELECT chunked_bytes FROM assistant_messages`).toEqual([
      { chunked_bytes: null },
    ]);
    expect(countChunks(database)).toBe(0);
    database.close();
  });

  it("rewrites the continuation rows when an update changes the size", () => {
    const database = openSqlite(":memory:");
    const provider = new AgentSessionProvider(database, "s");
    provider.appendMessage(largeMessage("m", 4_000_000));
    const before = countChunks(database);
    expect(before).toBeGreaterThan(1);
    provider.updateMessage(textMessage("m", "small now"));
    expect(countChunks(database)).toBe(0);
    expect(database.sql`SELECT chunked_bytes FROM assistant_messages`).toEqual([
      { chunked_bytes: null },
    ]);
    const bigger = largeMessage("m", 8_000_000);
    provider.updateMessage(bigger);
    expect(countChunks(database)).toBeGreaterThan(before);
    expect(JSON.stringify(provider.getMessage("m"))).toBe(
      JSON.stringify(bigger),
    );
    database.close();
  });

  it("deletes continuation rows with their message: delete with repair, clear, session delete", async () => {
    const database = openSqlite(":memory:");
    const provider = new AgentSessionProvider(database, "s");
    provider.appendMessage(textMessage("root", "root"));
    provider.appendMessage(largeMessage("middle", 3_000_000));
    provider.appendMessage(largeMessage("leaf", 3_000_000));
    provider.deleteMessages(["middle"]);
    expect(provider.getHistory().map((message) => message.id)).toEqual([
      "root",
      "leaf",
    ]);
    expect(countChunks(database)).toBeGreaterThan(0);
    expect(chunkOwners(database)).toEqual([seqOf(database, "leaf")]);
    provider.clearMessages();
    expect(countChunks(database)).toBe(0);

    const manager = SessionManager.create(database).withRowSizeLimit(false);
    const info = await manager.create("large");
    await manager
      .getSession(info.id)
      .appendMessage(largeMessage("m", 3_000_000));
    expect(countChunks(database)).toBeGreaterThan(0);
    await manager.delete(info.id);
    expect(countChunks(database)).toBe(0);
    database.close();
  });

  it("passes the manager's row-size limit to every session it opens", async () => {
    const database = openSqlite(":memory:");
    const manager = SessionManager.create(database).withRowSizeLimit(false);
    const big = largeMessage("m", 3_000_000);
    const info = await manager.create("large");
    await manager.getSession(info.id).appendMessage(big);
    const reopened = SessionManager.create(database);
    expect(
      JSON.stringify(await reopened.getSession(info.id).getMessage("m")),
    ).toBe(JSON.stringify(big));
    database.close();
  });

  it("reads split messages by a list of ids", () => {
    const database = openSqlite(":memory:");
    const provider = new AgentSessionProvider(database, "s");
    const big = largeMessage("big", 3_000_000);
    provider.appendMessage(textMessage("small", "hi"));
    provider.appendMessage(big);
    const contents = readContentsByIds(database, "s", ["big", "small", "x"]);
    expect([...contents.keys()].sort()).toEqual(["big", "small"]);
    expect(contents.get("big")).toBe(JSON.stringify(big));
    database.close();
  });

  it("indexes the first MiB of a large message's text for search, no more", () => {
    const database = openSqlite(":memory:");
    const provider = new AgentSessionProvider(database, "s");
    const big = largeMessage("big", 3_000_000);
    const part = big.parts[0]!;
    big.parts[0] = { ...part, text: `${part.text as string} ${TAIL_WORD}` };
    provider.appendMessage(big);
    expect(provider.searchMessages(NEEDLE).map((hit) => hit.id)).toEqual([
      "big",
    ]);
    expect(provider.searchMessages(NEEDLE)[0]!.content).toBe(big.parts[0].text);
    expect(provider.searchMessages(TAIL_WORD)).toEqual([]);
    database.close();
  });

  it("migrates a store written before continuation rows existed", () => {
    const database = openSqlite(":memory:");
    database.sql`CREATE TABLE arbor_meta (key TEXT PRIMARY KEY, value TEXT)`;
    MIGRATIONS[0]!(database);
    MIGRATIONS[1]!(database);
    database.sql`INSERT INTO arbor_meta (key, value) VALUES (${SCHEMA_VERSION_KEY}, '2')`;
    database.sql`INSERT INTO assistant_messages (id, session_id, parent_id, role, content)
      VALUES ('old', 's', NULL, 'user', ${JSON.stringify(textMessage("old", "kept"))})`;
    const provider = new AgentSessionProvider(database, "s");
    const big = largeMessage("big", 3_000_000);
    provider.appendMessage(big);
    expect(provider.getHistory().map((message) => message.id)).toEqual([
      "old",
      "big",
    ]);
    expect(JSON.stringify(provider.getHistory()[1])).toBe(JSON.stringify(big));
    database.close();
  });
});

// --- Internal helpers ---

type Database = ReturnType<typeof openSqlite>;

function countChunks(database: Database): number {
  const [row] = database.sql<{
    count: number;
  }>`SELECT COUNT(*) AS count FROM assistant_message_chunks`;
  return Number(row?.count ?? 0);
}

function chunkOwners(database: Database): number[] {
  return database.sql<{
    seq: number;
  }>`SELECT DISTINCT message_seq AS seq FROM assistant_message_chunks`.map(
    (row) => row.seq,
  );
}

function seqOf(database: Database, id: string): number {
  const [row] = database.sql<{
    seq: number;
  }>`SELECT seq FROM assistant_messages WHERE id = ${id}`;
  return row!.seq;
}

function textMessage(id: string, text: string): SessionMessage {
  return { id, role: "user", parts: [{ type: "text", text }] };
}

/** About `bytes` of mixed ASCII, Cyrillic, CJK and emoji text, the needle first. */
function largeMessage(id: string, bytes: number): SessionMessage {
  const unit = "ascii привет 金曜日の会議 🎉🚀 ";
  const text = `${NEEDLE} ${unit.repeat(Math.ceil(bytes / Buffer.byteLength(unit)))}`;
  return { id, role: "assistant", parts: [{ type: "text", text }] };
}
