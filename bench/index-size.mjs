// What tool calls cost the text index (docs/search.md#what-is-indexed): 5,000 assistant messages
// of a coding agent, each a sentence and one tool call (half shell commands whose output is a
// listing or a test log of about 2 KB, half `write_file` calls carrying 3 KB of code, answered
// "wrote N bytes"), stored on SQLite and on PostgreSQL, the index measured with tool outputs off
// (the default) and after `configureSearchIndex({ toolOutputs: true })`. Reported as index bytes
// per message and per byte of stored message JSON, beside a text-only store of the same
// sentences. Run by bench/run.mjs, or alone: `node bench/index-size.mjs` (after `npm run build`;
// PostgreSQL with ARBOR_TEST_PG_URL).
import { join } from "node:path";
import { applyPostgresSchema, SessionManager } from "arbor-memory/session";
import { openSqlite } from "arbor-memory/sqlite";
import {
  postgresStore,
  freshFile,
  runAlone,
  scratch,
  throwawayDatabase,
} from "./standalone.mjs";
import { sentence } from "./workload.mjs";

const MESSAGES = 5_000;

export async function runIndexSize(dir, record) {
  const folder = scratch(dir, "index-size");
  for (const workload of ["text only", "tool calls"]) {
    const file = freshFile(join(folder, "index-size.db"));
    const db = openSqlite(file);
    try {
      const manager = SessionManager.create(db);
      const json = await fill(manager, workload);
      await manager.search("warm");
      report(
        record,
        workload,
        "sqlite",
        "outputs off",
        sqliteIndexBytes(db),
        json,
      );
      if (workload === "tool calls") {
        await manager.configureSearchIndex({ toolOutputs: true });
        report(
          record,
          workload,
          "sqlite",
          "outputs on",
          sqliteIndexBytes(db),
          json,
        );
      }
    } finally {
      db.close();
    }
  }
  const server = process.env.ARBOR_TEST_PG_URL;
  if (!server) {
    console.log(
      "index size on PostgreSQL: skipped (ARBOR_TEST_PG_URL is not set)",
    );
    return;
  }
  for (const workload of ["text only", "tool calls"]) {
    const { pool, drop } = await throwawayDatabase(server, "arbor_bench_index");
    try {
      await applyPostgresSchema(pool);
      const manager = SessionManager.create(await postgresStore(pool));
      const json = await fill(manager, workload);
      report(
        record,
        workload,
        "postgres",
        "outputs off",
        await postgresIndexBytes(pool),
        json,
      );
      if (workload === "tool calls") {
        await manager.configureSearchIndex({ toolOutputs: true });
        report(
          record,
          workload,
          "postgres",
          "outputs on",
          await postgresIndexBytes(pool),
          json,
        );
      }
    } finally {
      await drop();
    }
  }
}

// --- Internal helpers ---

function report(record, workload, backend, setting, bytes, json) {
  const label =
    workload === "text only"
      ? "index: text only"
      : `index: tool calls, ${setting}`;
  record(
    label,
    backend,
    bytes / MESSAGES,
    "B/msg",
    `${(bytes / json).toFixed(2)}x the messages' JSON (${(json / MESSAGES / 1024).toFixed(1)} KB each)`,
  );
}

/** Appends the workload's messages to 50 sessions; returns the bytes of their JSON. */
async function fill(manager, workload) {
  let json = 0;
  for (let session = 0; session < 50; session++) {
    const info = await manager.create(`agent ${session}`);
    const messages = Array.from({ length: MESSAGES / 50 }, (_, index) =>
      agentMessage(session * 1_000 + index, workload),
    );
    for (const message of messages)
      json += Buffer.byteLength(JSON.stringify(message));
    await manager.appendAll(info.id, messages);
  }
  return json;
}

function agentMessage(n, workload) {
  const parts = [{ type: "text", text: sentence(n) }];
  if (workload === "tool calls")
    parts.push(n % 2 === 0 ? shellCall(n) : writeCall(n));
  return { id: `m${n}`, role: "assistant", parts };
}

function shellCall(n) {
  const listing = n % 4 === 0;
  const lines = Array.from({ length: 36 }, (_, line) =>
    listing
      ? `-rw-r--r--  1 agent staff  ${1_000 + ((n * 37 + line * 101) % 9_000)} Dec  2 08:${String(line).padStart(2, "0")} src/module-${(n + line) % 97}/handler-${line}.ts`
      : `  ✓ test/suite-${(n + line) % 53}.test.ts > ${sentence(n + line).slice(0, 40)} (${(n * line) % 900} ms)`,
  );
  return {
    type: "tool-bash",
    toolCallId: `call-${n}`,
    state: "output-available",
    input: {
      command: listing
        ? `ls -la src/module-${n % 97}`
        : `npx vitest run test/suite-${n % 53}.test.ts`,
    },
    output: { stdout: lines.join("\n"), exitCode: 0 },
  };
}

function writeCall(n) {
  const code = Array.from(
    { length: 60 },
    (_, line) =>
      `  const value${line} = compute${(n + line) % 31}(input.field${line % 7}, ${line});`,
  ).join("\n");
  return {
    type: "tool-write_file",
    toolCallId: `call-${n}`,
    state: "output-available",
    input: {
      path: `src/generated/file-${n}.ts`,
      content: `export function f${n}(input) {\n${code}\n}`,
    },
    output: `wrote ${code.length + 40} bytes to src/generated/file-${n}.ts`,
  };
}

/** The FTS5 index's pages: its segments (`_data`), stored copy (`_content`), sizes and config. */
function sqliteIndexBytes(db) {
  const [row] =
    db.sql`SELECT SUM(pgsize) AS bytes FROM dbstat WHERE name LIKE 'assistant_fts%'`;
  return Number(row.bytes);
}

/** The search text column and its GIN index: what the messages' search costs beyond their JSON. */
async function postgresIndexBytes(pool) {
  const { rows } = await pool.query(
    `SELECT pg_relation_size('idx_assistant_msg_fts') AS gin,
      (SELECT SUM(pg_column_size(text_content) + pg_column_size(content_tsv)) FROM assistant_messages) AS columns`,
  );
  return Number(rows[0].gin) + Number(rows[0].columns);
}

await runAlone(import.meta.url, "index-size", runIndexSize);
