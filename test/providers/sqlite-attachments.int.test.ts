// Attachments on the SQL-tag store over better-sqlite3 (docs/behavior/storage.md#attachments):
// the conformance suite checks what reads return; this counts the rows behind them.
import { randomBytes } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import type { SessionMessage } from "../../src/session/contracts/types.js";
import { SessionManager } from "../../src/session/manager/session-manager.js";
import { Session } from "../../src/session/facade/session.js";
import { AgentSessionProvider } from "../../src/backends/sql/index.js";
import { openSqlite } from "../../src/sqlite/open-sqlite.js";

const BYTES = randomBytes(3 * 1024 * 1024 + 11);
const IMAGE_URL = `data:image/png;base64,${BYTES.toString("base64")}`;

function image(id: string, url = IMAGE_URL): SessionMessage {
  return {
    id,
    role: "user",
    parts: [
      { type: "text", text: "a picture" },
      { type: "file", mediaType: "image/png", url, filename: "cat.png" },
    ],
  };
}

function counts(database: ReturnType<typeof openSqlite>) {
  const count = (table: string) =>
    Number(
      (
        database.database
          .prepare(`SELECT COUNT(*) AS n FROM ${table}`)
          .get() as { n?: number } | undefined
      )?.n ?? 0,
    );
  return {
    attachments: count("arbor_attachments"),
    chunks: count("arbor_attachment_chunks"),
    references: count("arbor_attachment_refs"),
  };
}

describe("SQLite attachments", () => {
  it("stores a 3 MB image once for two messages in two sessions, in 1 MiB chunks", () => {
    const database = openSqlite(":memory:");
    const first = new AgentSessionProvider(database, "a");
    const second = new AgentSessionProvider(database, "b");
    first.appendMessage(image("one"));
    second.appendMessage(image("two"));
    expect(counts(database)).toEqual({
      attachments: 1,
      chunks: 4,
      references: 2,
    });
    const [content] = database.database
      .prepare("SELECT content FROM assistant_messages WHERE id = 'one'")
      .all() as Array<{ content: string }>;
    expect(content!.content.length).toBeLessThan(1000);
    expect(content!.content).toContain("arbor-attachment:sha256:");
    const chunkSizes = database.database
      .prepare(
        "SELECT length(data) AS size FROM arbor_attachment_chunks ORDER BY chunk_index",
      )
      .all() as Array<{ size: number }>;
    expect(chunkSizes.map((row) => row.size)).toEqual([
      1_048_576, 1_048_576, 1_048_576, 11,
    ]);
    expect(first.getMessage("one")?.parts[1]?.url).toBe(IMAGE_URL);
    database.close();
  });

  it("deletes the bytes with the last reference: delete, update, clear", () => {
    const database = openSqlite(":memory:");
    const first = new AgentSessionProvider(database, "a");
    const second = new AgentSessionProvider(database, "b");
    first.appendMessage(image("one"));
    first.appendMessage(image("two"));
    second.appendMessage(image("three"));
    first.deleteMessages(["one"]);
    expect(counts(database)).toEqual({
      attachments: 1,
      chunks: 4,
      references: 2,
    });
    second.updateMessage({
      id: "three",
      role: "user",
      parts: [{ type: "text", text: "gone" }],
    });
    expect(counts(database).references).toBe(1);
    first.clearMessages();
    expect(counts(database)).toEqual({
      attachments: 0,
      chunks: 0,
      references: 0,
    });
    database.close();
  });

  it("deletes a session's attachments with the session (manager delete)", async () => {
    const database = openSqlite(":memory:");
    const manager = SessionManager.create(database);
    const kept = await manager.create("kept");
    const dropped = await manager.create("dropped");
    await manager.getSession(dropped.id).appendMessage(image("x"));
    await manager
      .getSession(dropped.id)
      .appendMessage(image("y", "data:text/plain,hello"));
    expect(counts(database)).toEqual({
      attachments: 2,
      chunks: 5,
      references: 2,
    });
    await manager.getSession(kept.id).appendMessage(image("z"));
    await manager.delete(dropped.id);
    expect(counts(database)).toEqual({
      attachments: 1,
      chunks: 4,
      references: 1,
    });
    await manager.delete(kept.id);
    expect(counts(database)).toEqual({
      attachments: 0,
      chunks: 0,
      references: 0,
    });
    database.close();
  });

  it("reads a reference whose attachment is missing as the reference", () => {
    const database = openSqlite(":memory:");
    const provider = new AgentSessionProvider(database, "a");
    provider.appendMessage(image("one"));
    database.database.exec("DELETE FROM arbor_attachment_chunks");
    const url = provider.getMessage("one")?.parts[1]?.url;
    expect(url).toMatch(/^arbor-attachment:sha256:[0-9a-f]{64}$/);
    expect(provider.getHistory()[0]?.parts[1]?.url).toBe(url);
    database.close();
  });

  it("keeps inline data out of the row-size limit: a long text beside a 3 MB image is not shortened", async () => {
    const database = openSqlite(":memory:");
    const session = new Session(new AgentSessionProvider(database, "a"));
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const text = "long pasted text ".repeat(500);
    const message = image("one");
    message.parts.push({ type: "text", text });
    await session.appendMessage(message);
    const read = await session.getMessage("one");
    expect(
      read?.parts.map((part) => String(part.url ?? part.text).length),
    ).toEqual(
      message.parts.map((part) => String(part.url ?? part.text).length),
    );
    expect(JSON.stringify(read?.parts)).toBe(JSON.stringify(message.parts));
    expect(warn).not.toHaveBeenCalled();
    warn.mockRestore();
    database.close();
  });
  it("keeps inline data out of the row-size limit on importMessage too", async () => {
    const database = openSqlite(":memory:");
    const session = new Session(new AgentSessionProvider(database, "a"));
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const message = image("old");
    message.parts.push({ type: "text", text: "long pasted text ".repeat(500) });
    await session.importMessage(message, {
      parentId: null,
      createdAt: "2025-06-01T10:00:00.000Z",
    });
    const read = await session.getMessage("old");
    expect(JSON.stringify(read?.parts)).toBe(JSON.stringify(message.parts));
    expect(warn).not.toHaveBeenCalled();
    warn.mockRestore();
    database.close();
  });
});
