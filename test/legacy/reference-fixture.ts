/**
 * Legacy database fixture: drives the reference implementation (the published `agents@0.22.0`
 * package, `agents/experimental/memory/session`) as a black box through its public API to write
 * a realistic SQLite database in the reference's own schema, then reports what it wrote and what
 * the reference itself reads back, so the migration test can compare Arbor against it.
 *
 * The reference loads in plain Node (it imports `zod` and `nanoid`, no `cloudflare:*` modules);
 * its `sql` agent is Arbor's `openSqlite()` handle, of which only the `sql` tag is passed.
 *
 * Files are only written into directories made by `makeLegacyTempDir()` (`$TMPDIR/arbor-legacy-*`),
 * never into a path Arbor's own tests use.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  AgentSearchProvider,
  AgentSessionProvider,
  Session,
  SessionManager,
  type SessionMessage as ReferenceMessage,
} from "agents/experimental/memory/session";
import { openSqlite } from "../../src/sqlite/open-sqlite.js";

/** A message as plain JSON (what `JSON.parse(JSON.stringify(message))` gives). */
export type JsonMessage = {
  id: string;
  role: string;
  parts: Record<string, unknown>[];
  createdAt?: string;
  [extra: string]: unknown;
};

export interface ReferenceOverlay {
  id: string;
  summary: string;
  fromMessageId: string;
  toMessageId: string;
  /** As the reference's `getCompactions()` returns it: the legacy `YYYY-MM-DD HH:MM:SS` text. */
  createdAt: string;
}

export interface ReferenceSessionDescription {
  sessionId: string;
  /** Registry name for SessionManager sessions. */
  name?: string;
  /** Every message id of the session, in insertion order. */
  messageIds: string[];
  /** Each message as the reference's `getMessage(id)` returned it (raw, JSON-normalized). */
  messages: Record<string, JsonMessage>;
  /** Stored `created_at` column of each message (legacy `YYYY-MM-DD HH:MM:SS`, UTC). */
  legacyCreatedAt: Record<string, string>;
  /** The reference's `getHistory()` (active path, overlays applied), JSON-normalized. */
  history: JsonMessage[];
  /** Ids of `history` (overlay messages appear as `compaction_<overlayId>`). */
  activePathIds: string[];
  /** Raw path ids root → latest leaf, without overlays. */
  rawActivePathIds: string[];
  /** The reference's `getLatestLeaf()` id (identical on a fresh reader and on the writer). */
  latestLeafId: string | null;
  /** `getPathLength()` of the active path. */
  pathLength: number;
  /** Every leaf of the session → the reference's `getHistory(leaf)` ids. */
  historyByLeaf: Record<string, string[]>;
  /** Every message id with children → the reference's `getBranches(id)` ids (oldest first). */
  branches: Record<string, string[]>;
  /** The reference's `getCompactions()`, oldest first. */
  overlays: ReferenceOverlay[];
  /** Ids of overlays that the reference applies on the active path. */
  appliedOverlayIds: string[];
}

export interface SearchExpectation {
  sessionId: string;
  query: string;
  /** Arbor must return exactly these ids (any order). */
  expectedIds: string[];
  /** What the reference's own `session.search` returned (for information; CJK and phrases fail there). */
  referenceIds: string[];
}

export interface ReferenceFixture {
  filename: string;
  sessions: Record<string, ReferenceSessionDescription>;
  /** Session ids in the order they were created: default `""`, `forSession` one, manager ones. */
  sessionIds: string[];
  /** The SessionManager session that has messages, and one registered session with none. */
  managerSessionId: string;
  emptyManagerSessionId: string;
  /** `SessionManager.list()` of the reference (ids, legacy timestamps). */
  registry: {
    id: string;
    name: string;
    created_at: string;
    updated_at: string;
  }[];
  searches: SearchExpectation[];
  /** `updateMessage` of an unknown id leaves an FTS row without a message in the reference. */
  phantom: { sessionId: string; id: string; query: string };
  /** `cf_agents_context_blocks` rows written through the reference's block API (label → content). */
  contextBlocks: Record<string, string>;
  /** `cf_agents_search_entries` rows (label → key → content), written with `AgentSearchProvider`. */
  knowledge: Record<string, Record<string, string>>;
  /** Knowledge queries: label, query, keys that must be found. */
  knowledgeSearches: { label: string; query: string; expectedKeys: string[] }[];
  /** Groups of message ids that share one legacy `created_at` second (size ≥ 2). */
  sameSecondGroups: string[][];
}

/** A fresh `$TMPDIR/arbor-legacy-XXXXXX` directory for reference database files. */
export function makeLegacyTempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "arbor-legacy-"));
}

const text = (
  id: string,
  role: string,
  body: string,
  extra: object = {},
): ReferenceMessage =>
  ({
    id,
    role,
    parts: [{ type: "text", text: body }],
    ...extra,
  }) as ReferenceMessage;

/**
 * Writes a legacy database with the reference implementation and returns what it wrote. The
 * reference's handle is closed before this resolves, so the file can be opened by Arbor.
 */
export async function writeReferenceDatabase(
  filename: string,
): Promise<ReferenceFixture> {
  const dir = path.basename(path.dirname(path.resolve(filename)));
  if (!dir.startsWith("arbor-legacy-")) {
    throw new Error(
      `writeReferenceDatabase: ${filename} is not inside a makeLegacyTempDir() dir`,
    );
  }
  if (fs.existsSync(filename)) {
    throw new Error(`writeReferenceDatabase: ${filename} already exists`);
  }

  const handle = openSqlite(filename);
  // The reference only needs the `sql` tagged template.
  const agent = { sql: handle.sql };
  try {
    return await writeAll(agent, handle, filename);
  } finally {
    handle.close();
  }
}

// --- Internal helpers ---

type Agent = { sql: ReturnType<typeof openSqlite>["sql"] };

async function writeAll(
  agent: Agent,
  handle: ReturnType<typeof openSqlite>,
  filename: string,
): Promise<ReferenceFixture> {
  const insertionOrder = new Map<string, string[]>();
  const track = (sessionId: string, ...ids: string[]) => {
    const list = insertionOrder.get(sessionId) ?? [];
    list.push(...ids);
    insertionOrder.set(sessionId, list);
  };

  // ---- Default session "": context block, knowledge block, cached prompt ----
  const knowledge = new AgentSearchProvider(agent);
  const main = Session.create(agent)
    .withContext("memory", {
      description: "Facts about the user",
      maxTokens: 500,
    })
    .withContext("knowledge", {
      description: "Team knowledge base",
      provider: knowledge,
    })
    .withCachedPrompt();

  await waitForFreshSecond();
  await main.appendMessage(
    text(
      "d-u1",
      "user",
      "Can you deploy the billing service to production on Friday?",
      {
        createdAt: new Date("2025-01-10T09:00:00.000Z"),
        metadata: { source: "web", locale: "en-US" },
      },
    ),
  );
  await main.appendMessage({
    id: "d-a1",
    role: "assistant",
    parts: [
      { type: "step-start" },
      {
        type: "tool-deploy",
        toolCallId: "call_deploy_1",
        state: "output-available",
        input: { service: "billing", day: "friday" },
        output: { status: "scheduled", ticket: "OPS-42" },
      },
      {
        type: "text",
        text: "Done: the billing deployment is scheduled for Friday.",
      },
    ],
  } as ReferenceMessage);
  await main.appendMessage(
    text("d-u2", "user", "Напомни мне, пожалуйста, о релизе в пятницу утром."),
  );
  await main.appendMessage(
    text("d-a2", "assistant", "Хорошо, я напомню вам в пятницу в девять утра."),
  );
  track("", "d-u1", "d-a1", "d-u2", "d-a2");

  // A later second: two regenerations of the answer to d-u2, then the conversation continues
  // on the FIRST regeneration, so the newest leaf is not on the newest sibling.
  await waitForFreshSecond();
  await main.appendMessage(
    text(
      "d-a2b",
      "assistant",
      "Конечно! Напоминание о релизе поставлено на пятницу.",
    ),
    "d-u2",
  );
  await main.appendMessage(
    text("d-a2c", "assistant", "Напоминание создано: пятница, 9:00."),
    "d-u2",
  );
  await main.appendMessage(
    text(
      "d-u3",
      "user",
      "本番環境へのデプロイは金曜日です。チームに伝えてください。",
    ),
    "d-a2b",
  );
  await main.appendMessage(
    text(
      "d-a3",
      "assistant",
      "了解しました。金曜日のデプロイについてチームに連絡します。",
    ),
  );
  track("", "d-a2b", "d-a2c", "d-u3", "d-a3");

  // Edit an early message: the reference re-inserts its FTS row, so FTS rowids stop following
  // message order. Updating an unknown id leaves a phantom FTS row in the reference.
  await main.updateMessage({
    id: "d-a1",
    role: "assistant",
    parts: [
      { type: "step-start" },
      {
        type: "tool-deploy",
        toolCallId: "call_deploy_1",
        state: "output-available",
        input: { service: "billing", day: "friday" },
        output: { status: "scheduled", ticket: "OPS-42" },
      },
      {
        type: "text",
        text: "Done: the billing deployment is scheduled for Friday (ticket OPS-42).",
      },
    ],
  } as ReferenceMessage);
  await main.updateMessage(
    text("d-ghost", "user", "phantom zebra never stored"),
  );

  // Overlays: one on the active path, one on the abandoned branch (must not apply to the active path).
  await main.addCompaction(
    "User asked to deploy billing on Friday; the assistant scheduled it (OPS-42).",
    "d-u1",
    "d-a1",
  );
  await main.addCompaction(
    "Russian reminder exchange (first answer).",
    "d-u2",
    "d-a2",
  );

  // Context blocks through the reference's block API, and the frozen prompt.
  await main.replaceContextBlock("memory", "User prefers Friday deployments.");
  await main.appendContextBlock(
    "memory",
    "\nUser writes in English, Russian and Japanese.",
  );
  await knowledge.set(
    "deploy-policy",
    "Production deployments happen on Fridays after review.",
  );
  await knowledge.set("release-ru", "Релиз выходит в пятницу после проверки.");
  await knowledge.set(
    "release-ja",
    "本番環境へのデプロイは毎週金曜日に行います。",
  );
  // Re-set: the reference replaces the FTS row (new rowid) and keeps the entry row.
  await knowledge.set(
    "deploy-policy",
    "Production deployments happen on Fridays after review and a green CI run.",
  );
  const tools = (await main.tools()) as Record<
    string,
    { execute: (input: unknown, options: unknown) => Promise<string> }
  >;
  await tools.set_context!.execute(
    { label: "knowledge", content: "Rollbacks use the blue-green switch." },
    { toolCallId: "call_set_1", messages: [] },
  );
  await main.freezeSystemPrompt();

  // ---- Named session via forSession("chat-alpha") ----
  const alpha = Session.create(agent)
    .forSession("chat-alpha")
    .withContext("memory")
    .withCachedPrompt();
  await waitForFreshSecond();
  await alpha.appendMessage(
    text("a-u1", "user", "What is the weather in Lisbon?"),
  );
  await alpha.appendMessage({
    id: "a-a1",
    role: "assistant",
    parts: [
      {
        type: "dynamic-tool",
        toolName: "weather",
        toolCallId: "call_weather_1",
        state: "output-available",
        input: { city: "Lisbon" },
        output: { tempC: 21, sky: "sunny" },
      },
    ],
  } as ReferenceMessage);
  await alpha.appendMessage(
    text("a-a2", "assistant", "It is 21 °C and sunny in Lisbon."),
  );
  await alpha.appendMessage(text("a-u2", "user", "А завтра, в пятницу?"));
  await alpha.appendMessage(
    text("a-a3", "assistant", "В пятницу будет дождь."),
  );
  await alpha.appendMessage(
    text("a-a3b", "assistant", "В пятницу ожидается солнце."),
    "a-u2",
  );
  track("chat-alpha", "a-u1", "a-a1", "a-a2", "a-u2", "a-a3", "a-a3b");
  // Two overlays starting at the same message: the newer one supersedes the older.
  await alpha.addCompaction("Weather lookup for Lisbon.", "a-u1", "a-a1");
  await alpha.addCompaction("Weather in Lisbon: 21 °C, sunny.", "a-u1", "a-a2");
  await alpha.replaceContextBlock("memory", "Lives in Lisbon.");
  await alpha.freezeSystemPrompt();

  // ---- SessionManager sessions (registry in assistant_sessions) ----
  const manager = SessionManager.create(agent)
    .withContext("notes", { description: "Project notes" })
    .withCachedPrompt();
  const project = manager.create("Project notes", {
    model: "test-model",
    source: "fixture",
  });
  const scratch = manager.create("Scratch");
  await manager.appendAll(project.id, [
    text("p-u1", "user", "来週の金曜日にリリースノートを書きます。"),
    text("p-a1", "assistant", "Great, I will draft the release notes."),
    text("p-u2", "user", "Add a section about the billing migration."),
  ]);
  await manager.append(
    project.id,
    text("p-a2", "assistant", "Added the billing migration section."),
  );
  await manager.append(
    project.id,
    text(
      "p-a2b",
      "assistant",
      "Added a billing migration section with a rollback plan.",
    ),
    "p-u2",
  );
  track(project.id, "p-u1", "p-a1", "p-u2", "p-a2", "p-a2b");
  await manager.addCompaction(
    project.id,
    "Planning the release notes.",
    "p-u1",
    "p-a1",
  );
  await manager
    .getSession(project.id)
    .replaceContextBlock("notes", "Release notes due Friday.");
  await manager.getSession(project.id).freezeSystemPrompt();
  manager.addUsage(project.id, 120, 45, 0.0021);

  // ---- What the reference reads back ----
  const sessionIds = ["", "chat-alpha", project.id];
  const writers: Record<string, Session> = {
    "": main,
    "chat-alpha": alpha,
    [project.id]: manager.getSession(project.id),
  };
  const sessions: Record<string, ReferenceSessionDescription> = {};
  for (const sessionId of sessionIds) {
    sessions[sessionId] = await describeSession(
      agent,
      handle,
      sessionId,
      insertionOrder.get(sessionId) ?? [],
      writers[sessionId]!,
    );
  }
  sessions[project.id]!.name = project.name;
  sessions[scratch.id] = await describeSession(
    agent,
    handle,
    scratch.id,
    [],
    manager.getSession(scratch.id),
  );
  sessions[scratch.id]!.name = scratch.name;

  const searchCases: Omit<SearchExpectation, "referenceIds">[] = [
    { sessionId: "", query: "billing", expectedIds: ["d-u1", "d-a1"] },
    { sessionId: "", query: "Friday billing", expectedIds: ["d-u1", "d-a1"] },
    { sessionId: "", query: "пятницу", expectedIds: ["d-u2", "d-a2", "d-a2b"] },
    { sessionId: "", query: "金曜日", expectedIds: ["d-u3", "d-a3"] },
    { sessionId: "", query: "チーム", expectedIds: ["d-u3", "d-a3"] },
    { sessionId: "", query: "Lisbon", expectedIds: [] },
    {
      sessionId: "chat-alpha",
      query: "пятницу",
      expectedIds: ["a-u2", "a-a3", "a-a3b"],
    },
    { sessionId: "chat-alpha", query: "Lisbon", expectedIds: ["a-u1", "a-a2"] },
    { sessionId: project.id, query: "金曜日", expectedIds: ["p-u1"] },
    {
      sessionId: project.id,
      query: "billing",
      expectedIds: ["p-u2", "p-a2", "p-a2b"],
    },
  ];
  const searches: SearchExpectation[] = [];
  for (const c of searchCases) {
    const found = await writers[c.sessionId]!.search(c.query);
    searches.push({ ...c, referenceIds: found.map((r) => r.id) });
  }

  const contextBlocks = Object.fromEntries(
    handle.sql<{
      label: string;
      content: string;
    }>`SELECT label, content FROM cf_agents_context_blocks`.map((r) => [
      r.label,
      r.content,
    ]),
  );
  const knowledgeRows: Record<string, Record<string, string>> = {};
  for (const r of handle.sql<{ label: string; key: string; content: string }>`
    SELECT label, key, content FROM cf_agents_search_entries`) {
    (knowledgeRows[r.label] ??= {})[r.key] = r.content;
  }

  const sameSecondGroups = handle.sql<{ ids: string }>`
      SELECT json_group_array(id) AS ids FROM (SELECT id, created_at FROM assistant_messages ORDER BY rowid)
      GROUP BY created_at HAVING COUNT(*) >= 2`.map(
    (r) => JSON.parse(r.ids) as string[],
  );

  return {
    filename,
    sessions,
    sessionIds: [...sessionIds, scratch.id],
    managerSessionId: project.id,
    emptyManagerSessionId: scratch.id,
    registry: manager.list().map(({ id, name, created_at, updated_at }) => ({
      id,
      name,
      created_at,
      updated_at,
    })),
    searches,
    phantom: { sessionId: "", id: "d-ghost", query: "zebra" },
    contextBlocks,
    knowledge: knowledgeRows,
    knowledgeSearches: [
      {
        label: "knowledge",
        query: "deployments",
        expectedKeys: ["deploy-policy"],
      },
      { label: "knowledge", query: "пятницу", expectedKeys: ["release-ru"] },
      { label: "knowledge", query: "金曜日", expectedKeys: ["release-ja"] },
    ],
    sameSecondGroups,
  };
}

async function describeSession(
  agent: Agent,
  handle: ReturnType<typeof openSqlite>,
  sessionId: string,
  messageIds: string[],
  writer: Session,
): Promise<ReferenceSessionDescription> {
  // A fresh reader (cold latest-leaf lookup) and the writer (cached tip) must agree.
  const reader = new Session(new AgentSessionProvider(agent, sessionId));
  const latest = await reader.getLatestLeaf();
  const writerLatest = await writer.getLatestLeaf();
  if ((latest?.id ?? null) !== (writerLatest?.id ?? null)) {
    throw new Error(
      `reference disagrees with itself on the latest leaf of "${sessionId}": ` +
        `${latest?.id} (fresh) vs ${writerLatest?.id} (writer)`,
    );
  }

  const messages: Record<string, JsonMessage> = {};
  for (const id of messageIds) {
    const message = await reader.getMessage(id);
    if (!message) throw new Error(`reference lost message ${id}`);
    messages[id] = toJson(message);
  }
  const stored = handle.sql<{ id: string; created_at: string }>`
    SELECT id, created_at FROM assistant_messages WHERE session_id = ${sessionId} ORDER BY rowid`;
  if (stored.map((r) => r.id).join() !== messageIds.join()) {
    throw new Error(
      `unexpected stored order for "${sessionId}": ${stored.map((r) => r.id).join()}`,
    );
  }
  const legacyCreatedAt = Object.fromEntries(
    stored.map((r) => [r.id, r.created_at]),
  );

  const history = (await reader.getHistory()).map(toJson);
  const branches: Record<string, string[]> = {};
  const historyByLeaf: Record<string, string[]> = {};
  for (const id of messageIds) {
    const children = (await reader.getBranches(id)).map((m) => m.id);
    if (children.length > 0) branches[id] = children;
  }
  const parents = new Set(Object.keys(branches));
  for (const id of messageIds) {
    if (!parents.has(id))
      historyByLeaf[id] = (await reader.getHistory(id)).map((m) => m.id);
  }
  const rawActivePathIds: string[] = [];
  if (latest) {
    const parentOf = new Map<string, string | null>();
    for (const r of handle.sql<{ id: string; parent_id: string | null }>`
      SELECT id, parent_id FROM assistant_messages WHERE session_id = ${sessionId}`) {
      parentOf.set(r.id, r.parent_id);
    }
    for (
      let id: string | null | undefined = latest.id;
      id;
      id = parentOf.get(id)
    ) {
      rawActivePathIds.unshift(id);
    }
  }
  const overlays = (await reader.getCompactions()).map((c) => ({ ...c }));
  const activePathIds = history.map((m) => m.id);

  return {
    sessionId,
    messageIds,
    messages,
    legacyCreatedAt,
    history,
    activePathIds,
    rawActivePathIds,
    latestLeafId: latest?.id ?? null,
    pathLength: await reader.getPathLength(),
    historyByLeaf,
    branches,
    overlays,
    appliedOverlayIds: activePathIds
      .filter((id) => id.startsWith("compaction_"))
      .map((id) => id.slice("compaction_".length)),
  };
}

function toJson(message: unknown): JsonMessage {
  return JSON.parse(JSON.stringify(message)) as JsonMessage;
}

/** Waits until the wall clock is early in a second, so the next few writes share one second. */
async function waitForFreshSecond(): Promise<void> {
  const ms = Date.now() % 1000;
  await new Promise((resolve) => setTimeout(resolve, 1000 - ms + 5));
}
