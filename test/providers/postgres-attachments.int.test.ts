// Attachments on PostgreSQL (docs/behavior/storage.md#attachments) on every connection kind: the
// conformance suite checks what reads return; this counts the rows behind them.
import { postgresBackend } from "../../src/postgres/index.js";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import type { SessionMessage } from "../../src/session/contracts/types.js";
import { SessionManager } from "../../src/session/manager/session-manager.js";
import {
  PostgresSessionProvider,
  type PostgresClient,
} from "../../src/backends/postgres/index.js";
import {
  createTestDatabase,
  describePostgres,
  executeConnection,
  type TestDatabase,
} from "./postgres-database.js";

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

describePostgres("PostgreSQL attachments", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.drop());
  beforeEach(() => database.truncate());

  async function counts() {
    const { rows } = await database.pool.query(`SELECT
      (SELECT count(*) FROM arbor_attachments)::int AS attachments,
      (SELECT count(*) FROM arbor_attachment_chunks)::int AS chunks,
      (SELECT count(*) FROM arbor_attachment_refs)::int AS "references"`);
    return rows[0] as {
      attachments: number;
      chunks: number;
      references: number;
    };
  }

  const kinds: Array<[string, () => PostgresClient]> = [
    ["pg Pool", () => database.pool],
    ["execute", () => executeConnection(database.pool)],
    ["postgres.js", () => database.postgresJs()],
  ];

  for (const [kind, client] of kinds) {
    it(`stores a 3 MB image once for two sessions and releases it with the last reference (${kind})`, async () => {
      const first = new PostgresSessionProvider(client(), "a");
      const second = new PostgresSessionProvider(client(), "b");
      await first.appendMessage(image("one"));
      await first.appendMessage(image("two"));
      await second.appendMessage(image("three"));
      expect(await counts()).toEqual({
        attachments: 1,
        chunks: 4,
        references: 3,
      });
      const { rows } = await database.pool.query(
        "SELECT octet_length(content)::int AS size FROM assistant_messages WHERE id = 'one'",
      );
      expect(rows[0].size).toBeLessThan(1000);
      expect((await first.getMessage("one"))?.parts[1]?.url).toBe(IMAGE_URL);
      await first.deleteMessages(["one"]);
      expect(await counts()).toEqual({
        attachments: 1,
        chunks: 4,
        references: 2,
      });
      await second.updateMessage({
        id: "three",
        role: "user",
        parts: [{ type: "text", text: "gone" }],
      });
      expect((await counts()).references).toBe(1);
      await first.clearMessages();
      expect(await counts()).toEqual({
        attachments: 0,
        chunks: 0,
        references: 0,
      });
    });
  }

  it("re-imports a session with replace without losing the bytes", async () => {
    const provider = new PostgresSessionProvider(database.pool, "a");
    await provider.appendMessage(image("one"));
    const records = await provider.exportMessages();
    await provider.importRecords({
      messages: records,
      compactions: [],
      replace: true,
    });
    expect(await counts()).toEqual({
      attachments: 1,
      chunks: 4,
      references: 1,
    });
    expect((await provider.getMessage("one"))?.parts[1]?.url).toBe(IMAGE_URL);
    await provider.importRecords({
      messages: [
        { ...records[0]!, message: { id: "one", role: "user", parts: [] } },
      ],
      compactions: [],
      replace: true,
    });
    expect(await counts()).toEqual({
      attachments: 0,
      chunks: 0,
      references: 0,
    });
  });

  it("deletes a session's attachments with the session (manager delete)", async () => {
    const manager = SessionManager.create(postgresBackend(database.pool));
    const kept = await manager.create("kept");
    const dropped = await manager.create("dropped");
    await manager.getSession(dropped.id).appendMessage(image("x"));
    await manager.getSession(kept.id).appendMessage(image("z"));
    await manager
      .getSession(dropped.id)
      .appendMessage(image("y", "data:text/plain,hello"));
    expect(await counts()).toEqual({
      attachments: 2,
      chunks: 5,
      references: 3,
    });
    await manager.delete(dropped.id);
    expect(await counts()).toEqual({
      attachments: 1,
      chunks: 4,
      references: 1,
    });
    await manager.delete(kept.id);
    expect(await counts()).toEqual({
      attachments: 0,
      chunks: 0,
      references: 0,
    });
  });

  it("reads a reference whose attachment is missing as the reference", async () => {
    const provider = new PostgresSessionProvider(database.pool, "a");
    await provider.appendMessage(image("one"));
    await database.pool.query("DELETE FROM arbor_attachment_chunks");
    const url = (await provider.getMessage("one"))?.parts[1]?.url;
    expect(url).toMatch(/^arbor-attachment:sha256:[0-9a-f]{64}$/);
    expect((await provider.getHistory())[0]?.parts[1]?.url).toBe(url);
  });
});
