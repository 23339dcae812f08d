// Crashes: a child process (crash/crash-child.mjs) appends, updates, deletes, erases and searches
// one session of a SQLite file in a loop and is killed with SIGKILL at a random moment, again and
// again on the same file. After each kill: `PRAGMA integrity_check` is ok, every acknowledged
// write is there, nothing erased has come back (not even in the FTS5 segments), the search index
// matches the messages, and no tree repair is half-applied (no dangling parent, no overlay on a
// missing message). ARBOR_CRASH_KILLS sets the number of kills (default 50).
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { Session } from "../../src/session/index.js";
import { openSqlite, type SqliteHandle } from "../../src/sqlite/index.js";
import { dumpSqlite } from "./support/sqlite-dump.js";
import { transpileForChildren } from "./support/transpiled.js";

const KILLS = Number(process.env.ARBOR_CRASH_KILLS ?? 50);
const CHILD = fileURLToPath(
  new URL("./crash/crash-child.mjs", import.meta.url),
);

let modules: { modules: string; remove: () => void };
let folder = "";

beforeAll(() => {
  modules = transpileForChildren(["sqlite/open-sqlite.ts", "session/index.ts"]);
  folder = mkdtempSync(join(tmpdir(), "arbor-crash-"));
}, 60_000);
afterAll(() => {
  modules?.remove();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

/** What the parent knows of each message from the child's acknowledgements. */
interface Known {
  text: string;
  /** Every text the message had: an erase must leave no trace of any of them. */
  texts: string[];
  state: "present" | "deleted" | "erased";
}

it(
  `survives ${KILLS} SIGKILLs during appends, updates, deletes and erases`,
  async () => {
    const file = join(folder, "crash.db");
    const known = new Map<string, Known>();
    const erasedTexts: string[] = [];
    let acknowledged = 0;
    for (let kill = 0; kill < KILLS; kill++) {
      const seed = (Date.now() + kill * 7919) >>> 0;
      const { lines, errors } = await runAndKill(file, `k${kill}`, seed);
      expect(errors, `child stderr (seed ${seed})`).toBe("");
      const inFlight = apply(lines, known, erasedTexts);
      acknowledged += lines.filter((line) => line.startsWith("ACK")).length;
      const db = openSqlite(file);
      try {
        await check(
          db,
          known,
          erasedTexts,
          inFlight,
          `kill ${kill}, seed ${seed}`,
        );
      } finally {
        db.close();
      }
    }
    // The kills landed while writes were going on, not only before the first one.
    expect(acknowledged).toBeGreaterThan(KILLS * 5);
    expect(erasedTexts.length).toBeGreaterThan(KILLS / 4);
  },
  Math.max(120_000, KILLS * 3_000),
);

// --- Internal helpers ---

/** Starts the child, lets it write for a random while after it is ready, and kills it. */
function runAndKill(
  file: string,
  run: string,
  seed: number,
): Promise<{ lines: string[]; errors: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [
      CHILD,
      modules.modules,
      file,
      run,
      String(seed),
    ]);
    let output = "";
    let errors = "";
    let timer: ReturnType<typeof setTimeout> | undefined;
    child.stdout.on("data", (chunk) => {
      output += chunk;
      if (timer === undefined && output.includes("READY\n"))
        timer = setTimeout(() => child.kill("SIGKILL"), 5 + (seed % 200));
    });
    child.stderr.on("data", (chunk) => (errors += chunk));
    child.on("error", reject);
    child.on("close", () =>
      resolve({
        // A kill can tear the last line (a full pipe takes it in parts): only whole lines count,
        // so a torn "ACK" leaves its write in flight, checked against the database.
        lines: output
          .slice(0, output.lastIndexOf("\n") + 1)
          .split("\n")
          .filter((line) => line.length > 0),
        errors,
      }),
    );
    // A child that never gets ready is killed too; its stderr then tells why.
    setTimeout(() => child.kill("SIGKILL"), 15_000);
  });
}

/** Records the acknowledged writes; returns the write that began and was not acknowledged. */
function apply(
  lines: readonly string[],
  known: Map<string, Known>,
  erasedTexts: string[],
): { op: string; id: string; text: string } | null {
  let inFlight: { op: string; id: string; text: string } | null = null;
  for (const line of lines) {
    const [kind, op, id, text] = line.split(" ") as [
      string,
      string,
      string,
      string,
    ];
    if (kind === "BEGIN") inFlight = { op, id, text };
    if (kind !== "ACK") continue;
    inFlight = null;
    if (op === "append")
      known.set(id, { text, texts: [text], state: "present" });
    else if (op === "update") {
      const texts = known.get(id)?.texts ?? [];
      known.set(id, { text, texts: [...texts, text], state: "present" });
    } else if (op === "delete")
      known.set(id, { ...known.get(id)!, state: "deleted" });
    else if (op === "erase") {
      const entry = known.get(id);
      if (entry) {
        known.set(id, { ...entry, state: "erased" });
        erasedTexts.push(...entry.texts);
      }
    }
  }
  return inFlight;
}

async function check(
  db: SqliteHandle,
  known: Map<string, Known>,
  erasedTexts: string[],
  inFlight: { op: string; id: string; text: string } | null,
  where: string,
): Promise<void> {
  expect(db.database.pragma("integrity_check", { simple: true }), where).toBe(
    "ok",
  );
  const rows = db.sql<{
    id: string;
    parent_id: string | null;
    content: string;
  }>`
    SELECT id, parent_id, content FROM assistant_messages WHERE session_id = 'crash'`;
  const stored = new Map(rows.map((row) => [row.id, row]));
  const textOf = (id: string) =>
    (JSON.parse(stored.get(id)!.content) as { parts: Array<{ text: string }> })
      .parts[0]!.text;

  // The write in flight may or may not have committed: learn which, then hold it to that.
  if (inFlight) {
    const entry = known.get(inFlight.id);
    if (inFlight.op === "append" && stored.has(inFlight.id)) {
      const text = textOf(inFlight.id);
      known.set(inFlight.id, { text, texts: [text], state: "present" });
    }
    if (inFlight.op === "update" && entry && stored.has(inFlight.id)) {
      const text = textOf(inFlight.id);
      known.set(inFlight.id, {
        ...entry,
        text,
        texts: [...entry.texts, text],
      });
    }
    if ((inFlight.op === "delete" || inFlight.op === "erase") && entry) {
      if (!stored.has(inFlight.id)) {
        known.set(inFlight.id, {
          ...entry,
          state: inFlight.op === "erase" ? "erased" : "deleted",
        });
        if (inFlight.op === "erase") erasedTexts.push(...entry.texts);
      }
    }
  }
  for (const [id, entry] of known) {
    if (entry.state === "present") {
      expect(stored.has(id), `${where}: acknowledged ${id} is there`).toBe(
        true,
      );
      expect(textOf(id), `${where}: text of ${id}`).toBe(entry.text);
    } else {
      expect(stored.has(id), `${where}: ${entry.state} ${id} stays gone`).toBe(
        false,
      );
    }
  }
  // No half-applied repair: every parent and every overlay endpoint exists.
  for (const row of rows)
    if (row.parent_id !== null)
      expect(stored.has(row.parent_id), `${where}: parent of ${row.id}`).toBe(
        true,
      );
  for (const overlay of db.sql<{
    from_message_id: string;
    to_message_id: string;
  }>`
    SELECT from_message_id, to_message_id FROM assistant_compactions WHERE session_id = 'crash'`) {
    expect(stored.has(overlay.from_message_id), `${where}: overlay start`).toBe(
      true,
    );
    expect(stored.has(overlay.to_message_id), `${where}: overlay end`).toBe(
      true,
    );
  }
  // The search index, caught up by a search, holds exactly the messages and their text.
  await Session.create(db).forSession("crash").search("kept");
  const seqs = db.sql<{ seq: number }>`SELECT seq FROM assistant_messages`.map(
    (r) => r.seq,
  );
  const indexed = db.sql<{ rowid: number; content: string }>`
    SELECT rowid, content FROM assistant_fts`;
  expect(
    indexed.map((r) => r.rowid).sort((a, b) => a - b),
    `${where}: index rows`,
  ).toEqual([...seqs].sort((a, b) => a - b));
  const bySeq = new Map(
    db.sql<{
      seq: number;
      id: string;
    }>`SELECT seq, id FROM assistant_messages WHERE session_id = 'crash'`.map(
      (r) => [r.seq, r.id],
    ),
  );
  for (const row of indexed) {
    const id = bySeq.get(row.rowid);
    if (id)
      expect(row.content, `${where}: index text of ${id}`).toContain(
        textOf(id),
      );
  }
  // Nothing erased has come back, in any table (FTS5 segments included). A segment stores a term
  // after the first of a page as "shared prefix + suffix": the tail "x<seed>" is unique to one
  // text, so it is always whole. (An 8-digit tail alone matched other texts' numbers by chance.)
  const dump = dumpSqlite(db).toLowerCase();
  for (const text of erasedTexts)
    for (const form of [
      text.toLowerCase(),
      text.toLowerCase().slice(text.lastIndexOf("x")),
    ])
      if (dump.includes(form))
        // Only on a failure: name the row that holds the trace.
        expect(
          dump.split("\n").find((line) => line.includes(form)),
          `${where}: trace of ${text}`,
        ).toBeUndefined();
}
