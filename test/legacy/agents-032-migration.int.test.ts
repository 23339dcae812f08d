/**
 * agents@0.32 databases (docs/behavior/storage.md#sqlite-and-durable-objects): the SQLite file a
 * Durable Object wrote through agents@0.32's `agents/sessions` (reference/generate-032-fixtures.mjs,
 * committed as __fixtures__/agents-032.db) must open in Arbor, be lifted in place once, and read
 * back what the package itself read (agents-032.json): every message whole, with its parent,
 * order and time, media payloads restored, branches, the active leaf, overlays and search.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Session } from "../../src/session/index.js";
import { AgentSessionProvider } from "../../src/backends/sql/index.js";
import { openSqlite, type SqliteHandle } from "../../src/sqlite/open-sqlite.js";
import { makeLegacyTempDir, type JsonMessage } from "./reference-fixture.js";
import { SRC, transpileGraph } from "../providers/support/transpile-graph.js";

const FIXTURES = fileURLToPath(new URL("./__fixtures__/", import.meta.url));

interface Agents032Session {
  sessionId: string;
  /** Every message id still stored, in insertion order. */
  messageIds: string[];
  /** The package's `getMessage(id)`; texts over 10,000 characters as `textSha256`/`textLength`. */
  messages: Record<string, JsonMessage>;
  latestLeafId: string | null;
  activePathIds: string[];
  history: JsonMessage[];
  historyByLeaf: Record<string, string[]>;
  branches: Record<string, string[]>;
  overlays: {
    id: string;
    summary: string;
    fromMessageId: string;
    toMessageId: string;
    createdAt: string;
  }[];
}

interface Agents032Fixture {
  sessions: Record<string, Agents032Session>;
  overlayId: string;
  largeMessage: { id: string; characters: number; bytes: number };
}

/** The fixture's form of a message: very long texts by digest, as the generator wrote them. */
function digested(message: unknown): JsonMessage {
  const plain = JSON.parse(JSON.stringify(message)) as JsonMessage;
  plain.parts = plain.parts.map((part) => {
    if (part.type !== "text" || typeof part.text !== "string") return part;
    if (part.text.length <= 10_000) return part;
    const { text, ...rest } = part;
    return {
      ...rest,
      textSha256: crypto.createHash("sha256").update(text).digest("hex"),
      textLength: text.length,
    };
  });
  return plain;
}

const tables = (file: string) => {
  const raw = new Database(file, { readonly: true });
  try {
    return raw
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
      .all()
      .map((row) => (row as { name: string }).name);
  } finally {
    raw.close();
  }
};

let fixture: Agents032Fixture;
let file: string;
const tempDirs: string[] = [];

beforeAll(() => {
  const dir = makeLegacyTempDir();
  tempDirs.push(dir);
  file = path.join(dir, "agents-032.db");
  fs.copyFileSync(path.join(FIXTURES, "agents-032.db"), file);
  fixture = JSON.parse(
    fs.readFileSync(path.join(FIXTURES, "agents-032.json"), "utf8"),
  ) as Agents032Fixture;
  // Sanity: the copy really is in the package's schema, with continuation rows and media.
  const before = tables(file);
  expect(before).toContain("cf_agents_session_message_chunks");
  expect(before).toContain("cf_agents_session_attachment_chunks");
  expect(before).not.toContain("arbor_meta");

  const handle = openSqlite(file);
  try {
    new AgentSessionProvider(handle, "").getLatestLeaf();
  } finally {
    handle.close();
  }
}, 60_000);

afterAll(() => {
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
});

function withArbor<T>(work: (handle: SqliteHandle) => T): T {
  const handle = openSqlite(file);
  try {
    return work(handle);
  } finally {
    handle.close();
  }
}

describe("database written by agents@0.32.0 (agents/sessions)", () => {
  it("the fixture has branches, a split message, media, an overlay and two sessions", () => {
    expect(Object.keys(fixture.sessions).sort()).toEqual(["", "support"]);
    const main = fixture.sessions[""]!;
    expect(main.branches["u2"]).toEqual(["a2", "a2b", "a2c"]);
    expect(main.overlays.map((o) => o.id)).toEqual([fixture.overlayId]);
    expect(fixture.largeMessage.bytes).toBeGreaterThan(2 * 1_572_864);
  });

  it("drops the package's lifted tables and keeps its config table", () => {
    const after = tables(file);
    expect(
      after.filter((name) => name.startsWith("cf_agents_session")),
    ).toEqual(["cf_agents_session_config"]);
    expect(after).toContain("arbor_meta");
  });

  it("keeps every message of every session whole, in order, with its time", () => {
    withArbor((handle) => {
      for (const session of Object.values(fixture.sessions)) {
        const provider = new AgentSessionProvider(handle, session.sessionId);
        for (const id of session.messageIds) {
          const message = provider.getMessage(id);
          expect(message, `${session.sessionId}/${id}`).not.toBeNull();
          expect(digested(message)).toEqual(session.messages[id]);
        }
        expect(provider.exportMessages().map((r) => r.message.id)).toEqual(
          session.messageIds,
        );
      }
      const [imported] = handle.sql<{ created_at: string }>`
        SELECT created_at FROM assistant_messages WHERE id = 'imported-u5'`;
      expect(imported!.created_at).toBe("2026-01-05T09:11:00.000Z");
      const large = new AgentSessionProvider(handle, "").getMessage("a3")!;
      const text = large.parts[0]!.text as string;
      expect(text.length).toBe(fixture.largeMessage.characters);
      expect(Buffer.byteLength(text)).toBe(fixture.largeMessage.bytes);
      // Stored by Arbor's own row budget: a first piece plus continuation rows.
      const [split] = handle.sql<{ pieces: number }>`
        SELECT COUNT(*) AS pieces FROM assistant_message_chunks AS c
        JOIN assistant_messages AS m ON m.seq = c.message_seq WHERE m.id = 'a3'`;
      expect(split!.pieces).toBeGreaterThanOrEqual(2);
    });
  });

  it("gives the same branches, active leaf and paths as the package", () => {
    withArbor((handle) => {
      for (const session of Object.values(fixture.sessions)) {
        const provider = new AgentSessionProvider(handle, session.sessionId);
        const label = `session "${session.sessionId}"`;
        for (const id of session.messageIds) {
          expect(
            provider.getBranches(id).map((m) => m.id),
            `${label} children of ${id}`,
          ).toEqual(session.branches[id] ?? []);
        }
        expect(provider.getLatestLeaf()?.id ?? null, label).toBe(
          session.latestLeafId,
        );
        const history = provider.getHistory();
        expect(
          history.map((m) => m.id),
          label,
        ).toEqual(session.activePathIds);
        expect(history.map(digested), label).toEqual(session.history);
        for (const [leaf, ids] of Object.entries(session.historyByLeaf)) {
          expect(
            provider.getHistory(leaf).map((m) => m.id),
            `${label} leaf ${leaf}`,
          ).toEqual(ids);
        }
      }
    });
  });

  it("keeps the compaction overlay with its id, range and time", () => {
    withArbor((handle) => {
      const rows = handle.sql<Record<string, string>>`
        SELECT id, session_id, summary, from_message_id, to_message_id, created_at
        FROM assistant_compactions ORDER BY seq`;
      const [overlay] = fixture.sessions[""]!.overlays;
      expect(rows).toEqual([
        {
          id: overlay!.id,
          session_id: "",
          summary: overlay!.summary,
          from_message_id: overlay!.fromMessageId,
          to_message_id: overlay!.toMessageId,
          created_at: overlay!.createdAt,
        },
      ]);
    });
  });

  it("searches the lifted messages, the split one and CJK text included", () => {
    withArbor((handle) => {
      const main = new AgentSessionProvider(handle, "");
      const support = new AgentSessionProvider(handle, "support");
      const ids = (hits: { id: string }[]) => hits.map((hit) => hit.id).sort();
      expect(ids(main.searchMessages("invoices"))).toEqual([
        "a5",
        "imported-u5",
      ]);
      expect(ids(main.searchMessages("zeppelin"))).toEqual(["a3"]);
      expect(ids(support.searchMessages("Passwort"))).toEqual(["s1"]);
      expect(ids(support.searchMessages("パスワード"))).toEqual(["s2b"]);
    });
  });

  it("continues the conversation through a Session on the lifted store", async () => {
    const handle = openSqlite(file);
    try {
      const session = Session.create(handle);
      await session.appendMessage({
        id: "u6",
        role: "user",
        parts: [{ type: "text", text: "One more thing." }],
      });
      const history = await session.getHistory();
      expect(history.map((m) => m.id)).toEqual([
        ...fixture.sessions[""]!.activePathIds,
        "u6",
      ]);
    } finally {
      handle.close();
    }
  });
});

/**
 * The same lift inside workerd, over Durable Object SQLite (its 2 MB value limit, BLOBs as
 * ArrayBuffer, no `transaction()`): the fixture is placed where Miniflare persists the object.
 */
const WORKER = `
import { AgentSessionProvider } from "./backends/sql/index.js";

export class Store {
  constructor(ctx) { this.storage = ctx.storage.sql; }
  sql(strings, ...values) { return [...this.storage.exec(strings.join("?"), ...values)]; }
  async fetch(request) {
    try {
      if (new URL(request.url).pathname === "/touch") {
        this.sql\`CREATE TABLE IF NOT EXISTS touched (x)\`;
        return Response.json({});
      }
      const main = new AgentSessionProvider(this, "");
      const support = main.forSession("support");
      const large = main.getMessage("a3");
      return Response.json({
        history: main.getHistory().map((m) => m.id),
        supportHistory: support.getHistory().map((m) => m.id),
        latest: main.getLatestLeaf().id,
        largeLength: large.parts[0].text.length,
        media: main.getMessage("u3"),
        search: main.searchMessages("zeppelin").map((hit) => hit.id),
        tables: this.sql\`SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'cf_agents_session%'\`.map((r) => r.name),
      });
    } catch (error) {
      return Response.json({ error: String((error && error.stack) || error) }, { status: 500 });
    }
  }
}

export default {
  fetch(request, env) {
    return env.STORE.get(env.STORE.idFromName("conversation")).fetch(request);
  },
};
`;

function workerOptions(persist: string) {
  return {
    modules: [
      { type: "ESModule" as const, path: "/worker/index.js", contents: WORKER },
      ...[...transpileGraph(new URL("backends/sql/index.ts", SRC))].map(
        ([modulePath, contents]) => ({
          type: "ESModule" as const,
          path: `/worker/${modulePath}`,
          contents,
        }),
      ),
    ],
    modulesRoot: "/worker",
    compatibilityDate: "2025-01-01",
    durableObjects: { STORE: { className: "Store", useSQLite: true } },
    durableObjectsPersist: persist,
  };
}

function sqliteFiles(directory: string): string[] {
  return fs
    .readdirSync(directory, { recursive: true, encoding: "utf8" })
    .filter(
      (name) =>
        name.endsWith(".sqlite") && !path.basename(name).startsWith("metadata"),
    )
    .map((name) => path.join(directory, name));
}

describe("database written by agents@0.32.0, lifted inside workerd", () => {
  it("reads the same conversation after the lift on Durable Object SQLite", async () => {
    const persist = path.join(makeLegacyTempDir(), "durable-objects");
    tempDirs.push(path.dirname(persist));
    // Let Miniflare create the object's database file, then put the fixture in its place.
    let worker = new Miniflare(workerOptions(persist));
    await (await worker.dispatchFetch("http://localhost/touch")).json();
    await worker.dispose();
    const [objectFile] = sqliteFiles(persist);
    for (const suffix of ["-wal", "-shm"])
      fs.rmSync(`${objectFile}${suffix}`, { force: true });
    fs.copyFileSync(path.join(FIXTURES, "agents-032.db"), objectFile!);

    worker = new Miniflare(workerOptions(persist));
    try {
      const response = await worker.dispatchFetch("http://localhost/lift");
      const body = (await response.json()) as Record<string, unknown>;
      expect(body.error).toBeUndefined();
      const main = fixture.sessions[""]!;
      expect(body).toEqual({
        history: main.activePathIds,
        supportHistory: fixture.sessions["support"]!.activePathIds,
        latest: main.latestLeafId,
        largeLength: fixture.largeMessage.characters,
        media: main.messages["u3"],
        search: ["a3"],
        tables: ["cf_agents_session_config"],
      });
    } finally {
      await worker.dispose();
    }
  }, 60_000);
});
