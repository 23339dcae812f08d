// Regenerates the committed legacy fixtures in test/legacy/__fixtures__/: a SQLite database
// written by the real agents@0.22.0 through its public API (reference.db), and what that package
// itself read back from it (reference.json), which the legacy migration tests compare Arbor
// against. Run from the repository root with `npm run fixtures:legacy` (it builds Arbor and
// installs this folder first). The output differs from run to run only in timestamps and the
// ids the reference generates.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import {
  makeLegacyTempDir,
  writeReferenceDatabase,
} from "./legacy-fixture.mjs";

const FIXTURES = fileURLToPath(
  new URL("../test/legacy/__fixtures__/", import.meta.url),
);

const scratch = makeLegacyTempDir();
try {
  const file = path.join(scratch, "reference.db");
  const description = await writeReferenceDatabase(file);
  // One self-contained file: fold the WAL back in so no -wal/-shm file is needed beside it.
  const database = new Database(file);
  database.pragma("journal_mode = DELETE");
  database.close();

  fs.mkdirSync(FIXTURES, { recursive: true });
  fs.copyFileSync(file, path.join(FIXTURES, "reference.db"));
  const { filename: _scratchPath, ...rest } = description;
  fs.writeFileSync(
    path.join(FIXTURES, "reference.json"),
    `${JSON.stringify(rest, null, 2)}\n`,
  );
  console.log(
    `Wrote ${path.join(path.relative(process.cwd(), FIXTURES), "reference.{db,json}")}`,
  );
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
