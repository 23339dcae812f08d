// Moved from test/legacy/reference-fixture.ts (types stripped): the legacy tests now read the
// committed output in test/legacy/__fixtures__/ and no longer need agents@0.22.0 installed.
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
} from "agents/experimental/memory/session";
// Arbor's own built `openSqlite` (run `npm run build` first); better-sqlite3 comes from the root.
import { openSqlite } from "../dist/sqlite/index.js";
/** A fresh `$TMPDIR/arbor-legacy-XXXXXX` directory for reference database files. */
export function makeLegacyTempDir() {
  return fs.mkdtempSync(path.join(os.tmpdir(), "arbor-legacy-"));
}
const text = (id, role, body, extra = {}) => ({
  id,
  role,
  parts: [{ type: "text", text: body }],
  ...extra,
});
/**
 * Writes a legacy database with the reference implementation and returns what it wrote. The
 * reference's handle is closed before this resolves, so the file can be opened by Arbor.
 */
export async function writeReferenceDatabase(filename) {
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
async function writeAll(agent, handle, filename) {
  const insertionOrder = new Map();
  const track = (sessionId, ...ids) => {
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
  });
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
  });
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
  const tools = await main.tools();
  await tools.set_context.execute(
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
  });
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
  const writers = {
    "": main,
    "chat-alpha": alpha,
    [project.id]: manager.getSession(project.id),
  };
  const sessions = {};
  for (const sessionId of sessionIds) {
    sessions[sessionId] = await describeSession(
      agent,
      handle,
      sessionId,
      insertionOrder.get(sessionId) ?? [],
      writers[sessionId],
    );
  }
  sessions[project.id].name = project.name;
  sessions[scratch.id] = await describeSession(
    agent,
    handle,
    scratch.id,
    [],
    manager.getSession(scratch.id),
  );
  sessions[scratch.id].name = scratch.name;
  const searchCases = [
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
  const searches = [];
  for (const c of searchCases) {
    const found = await writers[c.sessionId].search(c.query);
    searches.push({ ...c, referenceIds: found.map((r) => r.id) });
  }
  const contextBlocks = Object.fromEntries(
    handle.sql`SELECT label, content FROM cf_agents_context_blocks`.map((r) => [
      r.label,
      r.content,
    ]),
  );
  const knowledgeRows = {};
  for (const r of handle.sql`
    SELECT label, key, content FROM cf_agents_search_entries`) {
    (knowledgeRows[r.label] ??= {})[r.key] = r.content;
  }
  const sameSecondGroups = handle.sql`
      SELECT json_group_array(id) AS ids FROM (SELECT id, created_at FROM assistant_messages ORDER BY rowid)
      GROUP BY created_at HAVING COUNT(*) >= 2`.map((r) => JSON.parse(r.ids));
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
async function describeSession(agent, handle, sessionId, messageIds, writer) {
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
  const messages = {};
  for (const id of messageIds) {
    const message = await reader.getMessage(id);
    if (!message) throw new Error(`reference lost message ${id}`);
    messages[id] = toJson(message);
  }
  const stored = handle.sql`
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
  const branches = {};
  const historyByLeaf = {};
  for (const id of messageIds) {
    const children = (await reader.getBranches(id)).map((m) => m.id);
    if (children.length > 0) branches[id] = children;
  }
  const parents = new Set(Object.keys(branches));
  for (const id of messageIds) {
    if (!parents.has(id))
      historyByLeaf[id] = (await reader.getHistory(id)).map((m) => m.id);
  }
  const rawActivePathIds = [];
  if (latest) {
    const parentOf = new Map();
    for (const r of handle.sql`
      SELECT id, parent_id FROM assistant_messages WHERE session_id = ${sessionId}`) {
      parentOf.set(r.id, r.parent_id);
    }
    for (let id = latest.id; id; id = parentOf.get(id)) {
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
function toJson(message) {
  return JSON.parse(JSON.stringify(message));
}
/** Waits until the wall clock is early in a second, so the next few writes share one second. */
async function waitForFreshSecond() {
  const ms = Date.now() % 1000;
  await new Promise((resolve) => setTimeout(resolve, 1000 - ms + 5));
}
