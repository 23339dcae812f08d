// Side-by-side with the reference implementation (the published `agents@0.22.0`, driven as a
// black box through its public API over the same `openSqlite` handle type). It lives in
// reference/ with its own package.json, installed here on first use, so Arbor's own install never
// pulls it. Run by bench/run.mjs; each workload runs on both, in this process, one after the other.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { Session } from "arbor-memory/session";
import { openSqlite } from "arbor-memory/sqlite";
import { message, sentence } from "./workload.mjs";

/**
 * @param {string} dir scratch folder
 * @param {(workload: string, backend: string, value: number, unit: string, note?: string) => void} record
 */
export async function runReference(dir, record) {
  let reference;
  try {
    installReference();
    reference = await import("../reference/agents-session.mjs");
  } catch (error) {
    console.log(
      `reference: skipped (agents@0.22.0 could not be installed in reference/: ${error.message})`,
    );
    return;
  }
  const implementations = [
    ["arbor", (db) => Session.create(db).forSession("bench")],
    [
      "reference",
      (db) => reference.Session.create({ sql: db.sql }).forSession("bench"),
    ],
  ];
  const count = 10_000;
  const results = {};
  for (const [name, open] of implementations) {
    const file = join(dir, `side-by-side-${name}.db`);
    const db = openSqlite(file);
    const session = open(db);
    const chunk = count / 10;
    const rates = [];
    for (let c = 0; c < 10; c++) {
      const start = performance.now();
      for (let i = c * chunk; i < (c + 1) * chunk; i++)
        await session.appendMessage(message(i));
      rates.push(chunk / ((performance.now() - start) / 1000));
    }
    const total = count / rates.reduce((sum, rate) => sum + chunk / rate, 0);
    const warmStart = performance.now();
    const warm = await session.getHistory();
    const warmMs = performance.now() - warmStart;
    db.close();
    const coldDb = openSqlite(file);
    const coldStart = performance.now();
    const cold = await open(coldDb).getHistory();
    const coldMs = performance.now() - coldStart;
    const query = "deploy friday";
    const matching = Array.from({ length: count }, (_, i) =>
      sentence(i),
    ).filter((text) =>
      query.split(" ").every((term) => text.split(" ").includes(term)),
    ).length;
    const found = (await open(coldDb).search(query, { limit: 100_000 })).length;
    coldDb.close();
    results[name] = {
      total,
      first: rates[0],
      last: rates[9],
      warmMs,
      coldMs,
      warm: warm.length,
      cold: cold.length,
      found,
      matching,
    };
  }
  const { arbor, reference: ref } = results;
  const row = (workload, a, r, unit, higherIsBetter, note = "") => {
    const ratio = higherIsBetter ? a / r : r / a;
    record(workload, "arbor", a, unit, note);
    record(
      workload,
      "reference",
      r,
      unit,
      `Arbor ${ratio.toFixed(1)}× ${higherIsBetter ? "faster" : "less time"}`,
    );
  };
  row(
    `side by side: append ${count.toLocaleString("en")}`,
    arbor.total,
    ref.total,
    "msg/s",
    true,
    `last/first 10%: arbor ${(arbor.last / arbor.first).toFixed(2)}, reference ${(ref.last / ref.first).toFixed(2)}`,
  );
  row(
    `side by side: getHistory ${count.toLocaleString("en")}, warm`,
    arbor.warmMs,
    ref.warmMs,
    "ms",
    false,
  );
  row(
    `side by side: getHistory ${count.toLocaleString("en")}, cold`,
    arbor.coldMs,
    ref.coldMs,
    "ms",
    false,
  );
  record(
    "side by side: two-word search found",
    "arbor",
    arbor.found,
    "hits",
    `of ${arbor.matching} matching`,
  );
  record(
    "side by side: two-word search found",
    "reference",
    ref.found,
    "hits",
    `of ${ref.matching} matching`,
  );

  // Depth 20,000: the reference's path query stops at 10,000 steps.
  const depth = 20_000;
  for (const [name, open] of implementations) {
    const db = openSqlite(join(dir, `depth-20000-${name}.db`));
    const session = open(db);
    await session.appendMessage(message(0));
    // Build the rest of the chain in one transaction through the store's own table, for speed.
    const columns =
      db.sql`SELECT name FROM pragma_table_info('assistant_messages')`.map(
        (c) => c.name,
      );
    const insert = db.database.prepare(
      columns.includes("seq")
        ? "INSERT INTO assistant_messages (id, session_id, parent_id, role, content, created_at) VALUES (?, 'bench', ?, 'user', ?, strftime('%Y-%m-%dT%H:%M:%fZ','now'))"
        : "INSERT INTO assistant_messages (id, session_id, parent_id, role, content) VALUES (?, 'bench', ?, 'user', ?)",
    );
    db.database.transaction(() => {
      for (let i = 1; i < depth; i++)
        insert.run(`m${i}`, `m${i - 1}`, JSON.stringify(message(i)));
    })();
    const history = await open(db).getHistory(`m${depth - 1}`);
    record(
      `side by side: getHistory depth ${depth.toLocaleString("en")}`,
      name,
      history.length,
      "messages",
      history.length === depth
        ? "complete"
        : `missing ${depth - history.length}`,
    );
    db.close();
  }
}

// --- Internal helpers ---

/** Installs reference/ (its own lockfile) unless its node_modules already has agents. */
function installReference() {
  const folder = fileURLToPath(new URL("../reference/", import.meta.url));
  if (existsSync(join(folder, "node_modules", "agents", "package.json")))
    return;
  console.log("reference: installing agents@0.22.0 in reference/ (once)");
  execFileSync("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd: folder,
    stdio: "inherit",
  });
}
