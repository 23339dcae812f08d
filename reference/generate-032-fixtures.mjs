// Regenerates the committed agents@0.32 fixture in test/legacy/__fixtures__/: a SQLite database
// written by the real agents@0.32.0 through its public `agents/sessions` API inside workerd
// (agents-032.db), and what that package itself read back from it (agents-032.json), which the
// 0.32 lift test compares Arbor against. Run from the repository root with
// `npm run fixtures:agents-032` (it installs reference/agents-0.32 first). The Durable Object
// (reference/agents-0.32/fixture-object.mjs) is bundled with rolldown and run by Miniflare with
// its storage persisted to a scratch directory, from which the object's SQLite file is copied.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { Miniflare } from "miniflare";
import { rolldown } from "rolldown";

const FIXTURES = fileURLToPath(
  new URL("../test/legacy/__fixtures__/", import.meta.url),
);
const ENTRY = fileURLToPath(
  new URL("./agents-0.32/fixture-object.mjs", import.meta.url),
);
/** Messages whose text is this long are described by size and digest, not copied into the JSON. */
const DIGEST_ABOVE_CHARACTERS = 10_000;

const WORKER = `
export { FixtureObject } from "./fixture-object.js";
export default {
  fetch(request, env) {
    return env.FIXTURE.get(env.FIXTURE.idFromName("conversation")).fetch(request);
  },
};
`;

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "arbor-agents-032-"));
try {
  const bundle = await rolldown({
    input: ENTRY,
    platform: "neutral",
    external: [/^cloudflare:/, /^node:/],
    logLevel: "warn",
  });
  const { output } = await bundle.generate({ format: "esm" });
  await bundle.close();
  const persist = path.join(scratch, "durable-objects");
  const worker = new Miniflare({
    modules: [
      { type: "ESModule", path: "/worker/index.js", contents: WORKER },
      ...output
        .filter((chunk) => chunk.type === "chunk")
        .map((chunk) => ({
          type: "ESModule",
          path: `/worker/${chunk.isEntry ? "fixture-object.js" : chunk.fileName}`,
          contents: chunk.code,
        })),
    ],
    modulesRoot: "/worker",
    compatibilityDate: "2026-04-01",
    compatibilityFlags: ["nodejs_compat"],
    durableObjects: {
      FIXTURE: { className: "FixtureObject", useSQLite: true },
    },
    durableObjectsPersist: persist,
  });
  let description;
  try {
    const response = await worker.dispatchFetch("http://fixture/write");
    description = await response.json();
    if (!response.ok) throw new Error(description.error ?? response.statusText);
  } finally {
    await worker.dispose();
  }

  const file = findSqliteFile(persist);
  // One self-contained file: fold the WAL back in so no -wal/-shm file is needed beside it.
  const database = new Database(file);
  database.pragma("journal_mode = DELETE");
  database.close();

  fs.mkdirSync(FIXTURES, { recursive: true });
  fs.copyFileSync(file, path.join(FIXTURES, "agents-032.db"));
  fs.writeFileSync(
    path.join(FIXTURES, "agents-032.json"),
    `${JSON.stringify(digestLargeTexts(description), null, 2)}\n`,
  );
  console.log(
    `Wrote ${path.join(path.relative(process.cwd(), FIXTURES), "agents-032.{db,json}")}`,
  );
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}

// --- Internal helpers ---

/** The one Durable Object SQLite file Miniflare persisted (it skips its own metadata files). */
function findSqliteFile(directory) {
  const found = [];
  const visit = (folder) => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) visit(full);
      else if (
        entry.name.endsWith(".sqlite") &&
        !entry.name.startsWith("metadata")
      )
        found.push(full);
    }
  };
  visit(directory);
  if (found.length !== 1)
    throw new Error(
      `Expected one Durable Object database, found: ${found.join(", ")}`,
    );
  return found[0];
}

/** Replaces each very long text part by `{ textSha256, textLength }`, so the JSON stays readable. */
function digestLargeTexts(value) {
  if (Array.isArray(value)) return value.map(digestLargeTexts);
  if (value === null || typeof value !== "object") return value;
  if (
    value.type === "text" &&
    typeof value.text === "string" &&
    value.text.length > DIGEST_ABOVE_CHARACTERS
  ) {
    const { text, ...rest } = value;
    return {
      ...rest,
      textSha256: crypto.createHash("sha256").update(text).digest("hex"),
      textLength: text.length,
    };
  }
  return Object.fromEntries(
    Object.entries(value).map(([key, entry]) => [key, digestLargeTexts(entry)]),
  );
}
