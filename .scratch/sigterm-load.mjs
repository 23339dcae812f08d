import { spawn } from "node:child_process";
import pg from "pg";
import { applyPostgresSchema, SessionManager } from "/work/wt-server/dist/session/index.js";
const admin = "postgres://postgres@127.0.0.1:5432/postgres";
const name = `arbor_sigterm_${Date.now().toString(36)}`;
const a = new pg.Client({ connectionString: admin }); await a.connect(); await a.query(`CREATE DATABASE ${name}`); await a.end();
const url = `postgres://postgres@127.0.0.1:5432/${name}`;
const pool = new pg.Pool({ connectionString: url, max: 2 });
await applyPostgresSchema(pool);
const info = await SessionManager.create(pool).create("Load");
const child = spawn(process.execPath, ["/work/wt-server/dist/cli/main.js", "serve", "--postgres", url, "--port", "0", "--skip-sample", "--shutdown-grace", "3000"], { stdio: ["ignore", "pipe", "pipe"] });
let err = ""; child.stderr.on("data", (c) => (err += c));
const port = await new Promise((res) => { let o = ""; child.stdout.on("data", (c) => { o += c; const m = /listening on http:\/\/[^:]+:(\d+)/.exec(o); if (m) res(Number(m[1])); }); });
const exited = new Promise((res) => child.once("exit", (code) => res(code)));
let signalAt = Infinity; const acked = []; const after = {}; const before = {}; let n = 0;
const worker = async (w) => {
  for (;;) {
    const id = `w${w}-${n++}`; const started = Date.now();
    try {
      const r = await fetch(`http://127.0.0.1:${port}/v1/sessions/${info.id}/messages`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ message: { id, role: "user", parts: [{ type: "text", text: "x" }] }, parentId: null }) });
      await r.text();
      if (r.status === 201) acked.push(id);
      const bucket = started >= signalAt ? after : before; bucket[r.status] = (bucket[r.status] ?? 0) + 1;
    } catch (e) { const bucket = started >= signalAt ? after : before; const k = e.cause?.code ?? "error"; bucket[k] = (bucket[k] ?? 0) + 1; if (started >= signalAt) return; }
  }
};
const workers = Array.from({ length: 32 }, (_, w) => worker(w));
await new Promise((r) => setTimeout(r, 1500));
signalAt = Date.now(); child.kill("SIGTERM");
const code = await exited; const exitMs = Date.now() - signalAt;
await Promise.race([Promise.all(workers), new Promise((r) => setTimeout(r, 3000))]);
const stored = new Set((await pool.query("SELECT id FROM assistant_messages WHERE session_id=$1", [info.id])).rows.map((r) => r.id));
const lost = acked.filter((id) => !stored.has(id));
console.log(JSON.stringify({ exitCode: code, exitMs, before, startedAfterSignal: after, acknowledged: acked.length, lost: lost.length, stderr: err.trim().split("\n").slice(0, 5) }, null, 2));
await pool.end(); const b = new pg.Client({ connectionString: admin }); await b.connect(); await b.query(`DROP DATABASE ${name} WITH (FORCE)`); await b.end();
process.exit(0);
