/**
 * Legacy databases (docs/behavior/storage.md#sqlite-and-durable-objects): a SQLite file written by the reference implementation
 * (`agents@0.22.0`, driven as a black box by `reference-fixture.ts`) must open in Arbor, be
 * migrated once, and read back exactly what the reference read before the migration.
 */
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Session, SessionManager } from "../../src/session/index.js";
import { AgentSessionProvider } from "../../src/backends/sql/index.js";
import { AgentContextProvider } from "../../src/backends/sql/sql-context-provider.js";
import { AgentSearchProvider } from "../../src/backends/sql/sql-search-provider.js";
import { openSqlite, type SqliteHandle } from "../../src/sqlite/open-sqlite.js";
import type { SessionMessage } from "../../src/session/contracts/types.js";
import { searchableText } from "../../src/session/messages/message-codec.js";
import {
  makeLegacyTempDir,
  copyReferenceDatabase,
  type JsonMessage,
  type ReferenceFixture,
} from "./reference-fixture.js";

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const LEGACY = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

/** The Arbor form of a legacy `CURRENT_TIMESTAMP` value. */
const isoOf = (legacy: string) => `${legacy.replace(" ", "T")}.000Z`;

const json = (value: unknown) =>
  JSON.parse(JSON.stringify(value)) as JsonMessage;

/** Overlay messages get their time from the store in Arbor and from the read in the reference. */
const withoutOverlayTime = (messages: JsonMessage[]) =>
  messages.map((m) => {
    if (!m.id.startsWith("compaction_")) return m;
    const { createdAt: _ignored, ...rest } = m;
    return rest;
  });

let fixture: ReferenceFixture;
let file: string;
/** Every table's rows and the schema right after the first (migrating) open. */
let migratedSnapshot: Snapshot;

const tempDirs: string[] = [];
afterAll(() => {
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
});

beforeAll(async () => {
  const dir = makeLegacyTempDir();
  tempDirs.push(dir);
  file = path.join(dir, "reference.db");
  fixture = copyReferenceDatabase(file);

  // Sanity: the file really is in the reference's schema before Arbor touches it.
  const raw = new Database(file, { readonly: true });
  try {
    const tables = raw
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
      .all()
      .map((r) => (r as { name: string }).name);
    expect(tables).not.toContain("arbor_meta");
    const columns = raw
      .prepare("PRAGMA table_info(assistant_messages)")
      .all()
      .map((r) => (r as { name: string }).name);
    expect(columns).not.toContain("seq");
    // The legacy index has a phantom row (update of an unknown id) and rowids unrelated to the
    // messages (d-a1 was updated, so its index row was re-inserted with a new rowid).
    const phantom = raw.prepare(
      "SELECT COUNT(*) AS n FROM assistant_fts WHERE id = 'd-ghost'",
    );
    expect((phantom.get() as { n: number }).n).toBe(1);
    const rowids = raw
      .prepare(
        `SELECT m.rowid AS message, f.rowid AS indexed FROM assistant_messages AS m
         JOIN assistant_fts AS f ON f.id = m.id WHERE m.id = 'd-a1'`,
      )
      .get() as { message: number; indexed: number };
    expect(rowids.indexed).not.toBe(rowids.message);
  } finally {
    raw.close();
  }

  // First open with Arbor: migrates, then a search brings the index up to date (the lift keeps
  // the reference's index rows; messages it never indexed, such as tool calls, are indexed by
  // the first search).
  const handle = openSqlite(file);
  try {
    new AgentSessionProvider(handle, "").getLatestLeaf();
    new AgentSessionProvider(handle, "").searchMessages("billing");
  } finally {
    handle.close();
  }
  migratedSnapshot = snapshot(file);
}, 60_000);

/** Opens the migrated file with Arbor for one test. */
function withArbor<T>(work: (handle: SqliteHandle) => T): T {
  const handle = openSqlite(file);
  try {
    return work(handle);
  } finally {
    handle.close();
  }
}

describe("legacy database written by agents@0.22.0", () => {
  it("the fixture exercises same-second writes, branches, overlays and three sessions", () => {
    expect(fixture.sessionIds.length).toBeGreaterThanOrEqual(4);
    expect(fixture.sameSecondGroups.some((group) => group.length >= 3)).toBe(
      true,
    );
    const main = fixture.sessions[""]!;
    expect(main.branches["d-u2"]).toEqual(["d-a2", "d-a2b", "d-a2c"]);
    expect(main.latestLeafId).toBe("d-a3");
    expect(main.appliedOverlayIds).toHaveLength(1);
    for (const session of Object.values(fixture.sessions)) {
      for (const value of Object.values(session.legacyCreatedAt))
        expect(value).toMatch(LEGACY);
    }
  });

  it("records a schema version in arbor_meta", () => {
    const meta = migratedSnapshot.rows["arbor_meta"] as {
      key: string;
      value: string;
    }[];
    const version = meta.find((row) => /schema/i.test(row.key));
    expect(version).toBeDefined();
    expect(Number(version!.value)).toBeGreaterThanOrEqual(1);
  });

  it("keeps every message of every session with the same content", () => {
    withArbor((handle) => {
      for (const session of Object.values(fixture.sessions)) {
        const provider = new AgentSessionProvider(handle, session.sessionId);
        for (const id of session.messageIds) {
          const message = provider.getMessage(id);
          expect(message, `${session.sessionId}/${id}`).not.toBeNull();
          expect(json(message)).toEqual(session.messages[id]);
        }
        // Insertion order survives: seq follows the reference's (created_at, rowid) order.
        const ordered = handle.sql<{ id: string }>`
          SELECT id FROM assistant_messages WHERE session_id = ${session.sessionId} ORDER BY seq`;
        expect(ordered.map((r) => r.id)).toEqual(session.messageIds);
        expect(provider.exportMessages().map((r) => r.message.id)).toEqual(
          session.messageIds,
        );
      }
    });
  });

  it("revives a message's own createdAt and keeps extra fields and tool parts", () => {
    withArbor((handle) => {
      const provider = new AgentSessionProvider(handle, "");
      const first = provider.getMessage("d-u1")!;
      expect(first.createdAt).toBeInstanceOf(Date);
      expect((first.createdAt as Date).toISOString()).toBe(
        "2025-01-10T09:00:00.000Z",
      );
      expect(first["metadata"]).toEqual({ source: "web", locale: "en-US" });
      const tool = provider
        .getMessage("d-a1")!
        .parts.find((p) => p.type === "tool-deploy");
      expect(tool).toMatchObject({
        toolCallId: "call_deploy_1",
        state: "output-available",
        output: { status: "scheduled", ticket: "OPS-42" },
      });
    });
  });

  it("gives the same active path, latest leaf and path length as the reference", () => {
    withArbor((handle) => {
      for (const session of Object.values(fixture.sessions)) {
        const provider = new AgentSessionProvider(handle, session.sessionId);
        const label = `session "${session.sessionId}"`;
        expect(provider.getLatestLeaf()?.id ?? null, label).toBe(
          session.latestLeafId,
        );
        const history = provider.getHistory().map(json);
        expect(
          history.map((m) => m.id),
          label,
        ).toEqual(session.activePathIds);
        expect(withoutOverlayTime(history), label).toEqual(
          withoutOverlayTime(session.history),
        );
        expect(provider.getPathLength(), label).toBe(session.pathLength);
        for (const [leaf, ids] of Object.entries(session.historyByLeaf)) {
          expect(
            provider.getHistory(leaf).map((m) => m.id),
            `${label} leaf ${leaf}`,
          ).toEqual(ids);
        }
      }
    });
  });

  it("keeps getBranches in insertion order, also for siblings written in the same second", () => {
    withArbor((handle) => {
      for (const session of Object.values(fixture.sessions)) {
        const provider = new AgentSessionProvider(handle, session.sessionId);
        for (const [parent, children] of Object.entries(session.branches)) {
          expect(provider.getBranches(parent).map((m) => m.id)).toEqual(
            children,
          );
        }
      }
      const main = new AgentSessionProvider(handle, "");
      expect(main.getBranches("d-u2").map((m) => m.id)).toEqual([
        "d-a2",
        "d-a2b",
        "d-a2c",
      ]);
    });
  });

  it("keeps overlays: same ids and ranges in order, ISO times, applied like the reference", () => {
    withArbor((handle) => {
      for (const session of Object.values(fixture.sessions)) {
        const provider = new AgentSessionProvider(handle, session.sessionId);
        const overlays = provider.getCompactions();
        expect(
          overlays.map(({ id, summary, fromMessageId, toMessageId }) => ({
            id,
            summary,
            fromMessageId,
            toMessageId,
          })),
        ).toEqual(
          session.overlays.map(
            ({ id, summary, fromMessageId, toMessageId }) => ({
              id,
              summary,
              fromMessageId,
              toMessageId,
            }),
          ),
        );
        for (const [index, overlay] of overlays.entries()) {
          expect(overlay.createdAt).toMatch(ISO_MS);
          expect(overlay.createdAt).toBe(
            isoOf(session.overlays[index]!.createdAt),
          );
        }
        // The synthetic summary message carries the overlay's stored time (docs/behavior/overlays.md#applying-overlays-at-read-time).
        for (const message of provider.getHistory()) {
          if (!message.id.startsWith("compaction_")) continue;
          const overlay = overlays.find(
            (o) => `compaction_${o.id}` === message.id,
          )!;
          expect((message.createdAt as Date).toISOString()).toBe(
            overlay.createdAt,
          );
        }
      }
      // The newer of two overlays starting at one message wins; a sibling branch's overlay
      // does not apply to the active path but does to its own branch.
      const alpha = fixture.sessions["chat-alpha"]!;
      expect(alpha.appliedOverlayIds).toEqual([alpha.overlays[1]!.id]);
      const main = fixture.sessions[""]!;
      expect(main.historyByLeaf["d-a2"]).toEqual(
        main.overlays.map((overlay) => `compaction_${overlay.id}`),
      );
    });
  });

  it("converts every legacy timestamp to ISO-8601 with milliseconds", () => {
    withArbor((handle) => {
      for (const session of Object.values(fixture.sessions)) {
        const provider = new AgentSessionProvider(handle, session.sessionId);
        for (const record of provider.exportMessages()) {
          expect(record.createdAt).toMatch(ISO_MS);
          expect(record.createdAt).toBe(
            isoOf(session.legacyCreatedAt[record.message.id]!),
          );
        }
      }
      for (const table of ["assistant_messages", "assistant_compactions"]) {
        const rows = migratedSnapshot.rows[table] as { created_at: string }[];
        expect(rows.length).toBeGreaterThan(0);
        for (const row of rows) expect(row.created_at).toMatch(ISO_MS);
      }
      const entries = migratedSnapshot.rows["cf_agents_search_entries"] as {
        created_at: string;
        updated_at: string;
      }[];
      for (const row of entries) {
        expect(row.created_at).toMatch(ISO_MS);
        expect(row.updated_at).toMatch(ISO_MS);
      }
    });
  });

  it("finds English, Russian and Japanese messages, per session, with ISO times", () => {
    withArbor((handle) => {
      for (const search of fixture.searches) {
        const provider = new AgentSessionProvider(handle, search.sessionId);
        // The fixture lists each query's every-term matches, as the reference searched.
        const results = provider.searchMessages(search.query, undefined, {
          match: "all",
        });
        const label = `"${search.query}" in "${search.sessionId}"`;
        // Tool-call inputs are searchable too: the weather call's `{ city: "Lisbon" }` is found,
        // which the reference (text parts only) could not.
        const toolCalls =
          search.query === "Lisbon" && search.sessionId === "chat-alpha"
            ? ["a-a1"]
            : [];
        expect(results.map((r) => r.id).sort(), label).toEqual(
          [...search.expectedIds, ...toolCalls].sort(),
        );
        for (const result of results) {
          expect(result.createdAt).toMatch(ISO_MS);
          expect(result.role).toBe(
            fixture.sessions[search.sessionId]!.messages[result.id]!.role,
          );
        }
      }
      // A Japanese word inside a sentence, which the reference's own index cannot find.
      const japanese = fixture.searches.find(
        (s) => s.query === "金曜日" && s.sessionId === "",
      )!;
      expect(japanese.referenceIds).toEqual([]);
      expect(
        new AgentSessionProvider(handle, "")
          .searchMessages("金曜日")
          .map((r) => r.id),
      ).toContain("d-u3");
    });
  });

  it("drops the reference's phantom index row and links index rows to messages by seq", () => {
    withArbor((handle) => {
      const { phantom } = fixture;
      const provider = new AgentSessionProvider(handle, phantom.sessionId);
      expect(provider.searchMessages(phantom.query)).toEqual([]);
      expect(provider.getMessage(phantom.id)).toBeNull();

      const unlinked = handle.sql<{ n: number }>`
        SELECT COUNT(*) AS n FROM assistant_fts AS f
        LEFT JOIN assistant_messages AS m ON m.seq = f.rowid
        WHERE m.seq IS NULL OR m.id <> f.id OR m.session_id <> f.session_id OR m.role <> f.role`;
      expect(unlinked[0]!.n).toBe(0);
      const indexed = handle.sql<{
        n: number;
      }>`SELECT COUNT(*) AS n FROM assistant_fts`;
      // Every message with searchable text: its text parts and its tool calls' inputs.
      const withText = Object.values(fixture.sessions)
        .flatMap((s) => Object.values(s.messages))
        .filter((m) => searchableText(m as SessionMessage).length > 0).length;
      expect(indexed[0]!.n).toBe(withText);
    });
  });

  it("keeps knowledge entries and context blocks, with the knowledge index linked by seq", () => {
    const entries = migratedSnapshot.rows["cf_agents_search_entries"] as {
      seq: number;
      label: string;
      key: string;
      content: string;
    }[];
    const byLabel: Record<string, Record<string, string>> = {};
    for (const row of entries)
      (byLabel[row.label] ??= {})[row.key] = row.content;
    expect(byLabel).toEqual(fixture.knowledge);
    expect(entries.every((row) => Number.isInteger(row.seq))).toBe(true);

    withArbor((handle) => {
      const unlinked = handle.sql<{ n: number }>`
        SELECT COUNT(*) AS n FROM cf_agents_search_fts AS f
        LEFT JOIN cf_agents_search_entries AS e ON e.seq = f.rowid
        WHERE e.seq IS NULL OR e.label <> f.label OR e.key <> f.key`;
      expect(unlinked[0]!.n).toBe(0);
      const indexed = handle.sql<{
        n: number;
      }>`SELECT COUNT(*) AS n FROM cf_agents_search_fts`;
      expect(indexed[0]!.n).toBe(entries.length);
      // Latin and Cyrillic words are found with a plain FTS5 match on the rebuilt index.
      for (const { label, query, expectedKeys } of fixture.knowledgeSearches) {
        if (/[\u3040-\u30ff\u4e00-\u9fff]/.test(query)) continue; // CJK: via the search provider
        const hits = handle.sql<{ key: string }>`
          SELECT key FROM cf_agents_search_fts
          WHERE cf_agents_search_fts MATCH ${`"${query}"`} AND label = ${label}`;
        expect(hits.map((h) => h.key).sort()).toEqual([...expectedKeys].sort());
      }
    });

    const blocks = migratedSnapshot.rows["cf_agents_context_blocks"] as {
      label: string;
      content: string;
    }[];
    expect(Object.fromEntries(blocks.map((b) => [b.label, b.content]))).toEqual(
      fixture.contextBlocks,
    );
    const registry = migratedSnapshot.rows["assistant_sessions"] as {
      id: string;
      name: string;
    }[];
    expect(registry.map(({ id, name }) => ({ id, name })).sort(byId)).toEqual(
      fixture.registry.map(({ id, name }) => ({ id, name })).sort(byId),
    );
  });

  it("serves the reference's SessionManager registry through Arbor's, with ISO times and its sessions", async () => {
    // On a copy: this writes (a fork), and later cases compare the migrated file byte for byte.
    const copyFile = `${file}.manager-copy`;
    fs.copyFileSync(file, copyFile);
    const handle = openSqlite(copyFile);
    const rows = await (async () => {
      const manager = SessionManager.create(handle);
      const listed = await manager.list();
      const history = await manager.getHistory(fixture.managerSessionId);
      const copy = await manager.fork(
        fixture.managerSessionId,
        history.at(-1)!.id,
        "fork of a legacy session",
      );
      return {
        listed,
        history,
        forkHistory: await manager.getHistory(copy.id),
      };
    })().finally(() => handle.close());
    expect(rows.listed.map((info) => info.id).sort()).toEqual(
      fixture.registry.map((info) => info.id).sort(),
    );
    for (const info of rows.listed) {
      expect(info.created_at).toMatch(ISO_MS);
      expect(info.updated_at).toMatch(ISO_MS);
      const legacy = fixture.registry.find((row) => row.id === info.id)!;
      // Same instant, ISO form: "2026-11-29 20:25:22" → "2026-11-29T20:25:22.000Z".
      expect(info.created_at).toBe(
        `${legacy.created_at.replace(" ", "T")}.000Z`,
      );
    }
    expect(rows.history.length).toBeGreaterThan(0);
    expect(rows.forkHistory.map((m) => m.parts)).toEqual(
      rows.history.map((m) => m.parts),
    );
  });

  it("is a no-op when the migrated file is opened again", () => {
    withArbor((handle) => {
      for (const session of Object.values(fixture.sessions)) {
        const provider = new AgentSessionProvider(handle, session.sessionId);
        provider.getHistory();
        provider.getLatestLeaf();
        provider.searchMessages("billing");
      }
    });
    expect(snapshot(file)).toEqual(migratedSnapshot);
  });

  it("continues the same chains when new messages are appended after the migration", () => {
    const main = fixture.sessions[""]!;
    const alpha = fixture.sessions["chat-alpha"]!;
    const project = fixture.sessions[fixture.managerSessionId]!;
    withArbor((handle) => {
      const maxSeq = handle.sql<{
        s: number;
      }>`SELECT MAX(seq) AS s FROM assistant_messages`[0]!.s;

      const provider = new AgentSessionProvider(handle, "");
      provider.appendMessage(
        text("d-u4", "user", "And after the release, what next?"),
      );
      provider.appendMessage(
        text("d-a4", "assistant", "Then we monitor the billing metrics."),
      );
      expect(provider.getHistory().map((m) => m.id)).toEqual([
        ...main.activePathIds,
        "d-u4",
        "d-a4",
      ]);
      expect(provider.getLatestLeaf()?.id).toBe("d-a4");
      expect(provider.getMessage("d-u4")?.createdAt).toBeUndefined();
      const [row] = handle.sql<{
        seq: number;
        parent_id: string;
        created_at: string;
      }>`
        SELECT seq, parent_id, created_at FROM assistant_messages WHERE session_id = '' AND id = 'd-u4'`;
      expect(row!.seq).toBeGreaterThan(maxSeq);
      expect(row!.parent_id).toBe(main.latestLeafId);
      expect(row!.created_at).toMatch(ISO_MS);
      expect(
        provider
          .searchMessages("billing metrics", undefined, { match: "all" })
          .map((r) => r.id),
      ).toEqual(["d-a4"]);

      // A regeneration in the forSession() session becomes the newest sibling and the active branch.
      const chat = new AgentSessionProvider(handle, "chat-alpha");
      chat.appendMessage(
        text("a-a3c", "assistant", "В пятницу переменная облачность."),
        "a-u2",
      );
      expect(chat.getBranches("a-u2").map((m) => m.id)).toEqual([
        ...alpha.branches["a-u2"]!,
        "a-a3c",
      ]);
      expect(chat.getHistory().map((m) => m.id)).toEqual([
        ...alpha.activePathIds.slice(0, -1),
        "a-a3c",
      ]);

      // Ids are unique per session after the migration (the reference's key was global).
      chat.appendMessage(
        text("d-u1", "user", "Same id as a message of the default session."),
      );
      expect(chat.getMessage("d-u1")?.parts[0]?.text).toBe(
        "Same id as a message of the default session.",
      );
      expect(provider.getMessage("d-u1")?.parts[0]?.text).toBe(
        "Can you deploy the billing service to production on Friday?",
      );

      // SessionManager-registered session: auto-parent onto its latest leaf.
      const managed = new AgentSessionProvider(
        handle,
        fixture.managerSessionId,
      );
      managed.appendMessage(
        text("p-u3", "user", "金曜日の朝に公開しましょう。"),
      );
      expect(managed.getHistory().map((m) => m.id)).toEqual([
        ...project.activePathIds,
        "p-u3",
      ]);
      expect(
        managed
          .searchMessages("金曜日")
          .map((r) => r.id)
          .sort(),
      ).toEqual(["p-u1", "p-u3"]);
    });

    // And the file still opens as an already-migrated store.
    withArbor((handle) => {
      const provider = new AgentSessionProvider(handle, "");
      expect(provider.getLatestLeaf()?.id).toBe("d-a4");
      // The schema version is unchanged; the search-index watermark has moved with the searches.
      const version = (rows: unknown) =>
        (rows as Array<{ key: string; value: string }>).filter(
          (row) => row.key === "session_schema_version",
        );
      const meta = handle.sql`SELECT key, value FROM arbor_meta`;
      expect(version(meta)).toEqual(
        version(migratedSnapshot.rows["arbor_meta"]),
      );
    });
  });
});

describe("legacy database opened first through the knowledge and context providers", () => {
  let second: ReferenceFixture;
  let secondFile: string;

  beforeAll(async () => {
    const dir = makeLegacyTempDir();
    tempDirs.push(dir);
    secondFile = path.join(dir, "reference-2.db");
    second = copyReferenceDatabase(secondFile);
  }, 60_000);

  it("migrates on the first AgentSearchProvider call and finds entries in every script", async () => {
    const handle = openSqlite(secondFile);
    try {
      const knowledge = new AgentSearchProvider(handle);
      knowledge.init("knowledge");
      for (const { query, expectedKeys } of second.knowledgeSearches) {
        const found = await knowledge.search(query);
        expect(found, query).not.toBeNull();
        for (const key of expectedKeys)
          expect(found, query).toContain(`[${key}]\n`);
      }
      const count = Object.keys(second.knowledge["knowledge"]!).length;
      expect(await knowledge.get()).toBe(`${count} entries indexed.`);
      // The message store was migrated by the same first use.
      const meta = handle.sql<{
        key: string;
        value: string;
      }>`SELECT key, value FROM arbor_meta`;
      expect(meta.some((row) => /schema/i.test(row.key))).toBe(true);
      const columns = handle.sql<{
        name: string;
      }>`PRAGMA table_info(assistant_messages)`;
      expect(columns.map((c) => c.name)).toContain("seq");
      // Writing after the migration keeps the index linked: a re-set replaces, never duplicates.
      await knowledge.set("release-ja", "リリースは毎週金曜日の午後です。");
      expect(await knowledge.search("午後")).toContain("[release-ja]");
      expect(await knowledge.get()).toBe(`${count} entries indexed.`);
    } finally {
      handle.close();
    }
  });

  it("reads the reference's context blocks and cached prompts", async () => {
    const handle = openSqlite(secondFile);
    try {
      for (const [key, content] of Object.entries(second.contextBlocks)) {
        expect(await new AgentContextProvider(handle, key).get(), key).toBe(
          content,
        );
      }
    } finally {
      handle.close();
    }
  });

  it("serves a namespaced Session over the legacy file with its blocks and history", async () => {
    const handle = openSqlite(secondFile);
    try {
      const alpha = second.sessions["chat-alpha"]!;
      const session = Session.create(handle)
        .forSession("chat-alpha")
        .withContext("memory")
        .withCachedPrompt();
      expect((await session.getHistory()).map((m) => m.id)).toEqual(
        alpha.activePathIds,
      );
      // The frozen prompt the reference stored is served as it is.
      expect(await session.freezeSystemPrompt()).toBe(
        second.contextBlocks["_system_prompt_chat-alpha"],
      );
      await session.loadContext();
      expect(session.getContextBlock("memory")?.content).toBe(
        second.contextBlocks["memory_chat-alpha"],
      );
      // a-a1 is the weather tool call whose input names Lisbon.
      expect((await session.search("Lisbon")).map((r) => r.id).sort()).toEqual([
        "a-a1",
        "a-a2",
        "a-u1",
      ]);
    } finally {
      handle.close();
    }
  });
});

// --- Helpers ---

function text(id: string, role: string, body: string): SessionMessage {
  return { id, role, parts: [{ type: "text", text: body }] };
}

function byId(a: { id: string }, b: { id: string }): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

interface Snapshot {
  schema: { type: string; name: string; sql: string | null }[];
  rows: Record<string, unknown[]>;
}

/** The schema and every row of every ordinary table (FTS shadow tables included), read-only. */
function snapshot(filename: string): Snapshot {
  const db = new Database(filename, { readonly: true });
  try {
    const schema = db
      .prepare("SELECT type, name, sql FROM sqlite_master ORDER BY type, name")
      .all() as Snapshot["schema"];
    const rows: Record<string, unknown[]> = {};
    for (const { type, name, sql } of schema) {
      if (type !== "table" || sql?.startsWith("CREATE VIRTUAL")) continue;
      // Ordered by every column: also works for WITHOUT ROWID tables (FTS5 _idx, _config).
      const columns = db.prepare(`PRAGMA table_info("${name}")`).all().length;
      const orderBy = Array.from({ length: columns }, (_, i) => i + 1).join(
        ", ",
      );
      rows[name] = db
        .prepare(`SELECT * FROM "${name}" ORDER BY ${orderBy}`)
        .all();
    }
    return { schema, rows };
  } finally {
    db.close();
  }
}
