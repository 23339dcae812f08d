// Plain answers for two easy mistakes, from the compiled bin in a subprocess: a search of emoji
// only says nothing in it was searchable (not "No results."), and `--format pi` on a valid but
// pretty-printed JSON file says what the file is instead of a JSON syntax error on its line 1.
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, temporaryFolder } from "./support/cli.js";

const temporary = temporaryFolder();
const db = join(temporary.path, "arbor.db");
afterAll(() => temporary.remove());

describe("arbor search with nothing searchable in the query", () => {
  beforeAll(async () => {
    const run = await runCli([
      "import",
      "examples/sample/sample.arbor.jsonl",
      "--db",
      db,
    ]);
    expect(run.code, run.stderr).toBe(0);
  });

  it("an emoji-only query says so; a query of words that match nothing is 'No results.'", async () => {
    const emoji = await runCli(["search", "🎉 🚀", "--db", db]);
    expect(emoji.code, emoji.stderr).toBe(0);
    expect(emoji.stdout).toBe(
      'Nothing to search for in "🎉 🚀": a search matches words (letters or digits), and the query has none.\n',
    );
    const words = await runCli([
      "search",
      "zebra-quokka-xylophone",
      "--db",
      db,
    ]);
    expect(words.stdout).toBe("No results.\n");
  });
});

describe("arbor import --format pi on JSON of another shape", () => {
  it.each([
    [
      "an object",
      '{\n  "messages": [\n    { "role": "user", "content": "hi" }\n  ]\n}\n',
      "object",
    ],
    ["an array", '[\n  { "role": "user", "content": "hi" }\n]\n', "array"],
  ])(
    "a pretty-printed JSON %s: INVALID_IMPORT saying it is not JSON Lines, and no database",
    async (_, text, kind) => {
      const file = join(temporary.path, `${kind}.json`);
      writeFileSync(file, text);
      const target = join(temporary.path, `${kind}.db`);
      const run = await runCli([
        "import",
        file,
        "--format",
        "pi",
        "--db",
        target,
      ]);
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(
        `arbor: INVALID_IMPORT: the file is one JSON ${kind} over several lines, not JSON Lines (one JSON object per line), which this format reads; --format auto names the format of a file\n`,
      );
      expect(run.stderr).not.toContain("Unexpected end of JSON input");
      expect(existsSync(target)).toBe(false);
    },
  );

  it("one line of JSON that is not an object names what it is", async () => {
    const file = join(temporary.path, "line.json");
    writeFileSync(file, '[{ "role": "user", "content": "hi" }]\n');
    const run = await runCli(["import", file, "--format", "pi", "--db", db]);
    expect(run.stderr).toBe(
      "arbor: INVALID_IMPORT: line 1: expected a JSON object, got an array\n",
    );
  });
});
