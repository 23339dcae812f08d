// `arbor tree` and `arbor search` cut long text on character (grapheme) boundaries: a cut that
// falls inside an emoji or a ZWJ sequence keeps it whole or drops it, never half of it (which
// a terminal shows as U+FFFD). In-process through the CLI's main().
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SessionManager } from "../../src/session/index.js";
import { openSqlite } from "../../src/sqlite/index.js";
import { temporaryFolder } from "./support/folder.js";
import { runCliInProcess as arbor } from "./support/in-process.js";

/** Half of a surrogate pair without its other half: what a terminal prints as U+FFFD. */
const LONE_SURROGATE =
  /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const FAMILY = "👨‍👩‍👧‍👦";

describe("arbor tree and search cut on grapheme boundaries", () => {
  const folder = temporaryFolder();
  const db = join(folder.path, "emoji.db");
  let sessionId: string;
  // `search` shows 80 characters: 78 letters, then the emoji is the 79th, the cut's last kept.
  const prefix = "marmalade ".repeat(8).slice(0, 78);
  const text = `${prefix}${FAMILY}${FAMILY} and the rest of the message`;

  beforeAll(async () => {
    const database = openSqlite(db);
    try {
      const manager = SessionManager.create(database);
      const info = await manager.create("Emoji");
      sessionId = info.id;
      await manager.append(info.id, {
        id: "e1",
        role: "user",
        parts: [{ type: "text", text }],
      });
    } finally {
      database.close();
    }
  });
  afterAll(() => folder.remove());

  it("search keeps the ZWJ sequence whole", async () => {
    const run = await arbor(["search", "marmalade", "--db", db]);
    expect(run.code).toBe(0);
    expect(run.stdout).not.toMatch(LONE_SURROGATE);
    expect(run.stdout).toContain(`${prefix}${FAMILY}…`);
  });

  it.each([79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90])(
    "tree --width %i never splits the emoji",
    async (width) => {
      const run = await arbor([
        "tree",
        sessionId,
        "--width",
        String(width),
        "--db",
        db,
      ]);
      expect(run.code).toBe(0);
      expect(run.stdout).not.toMatch(LONE_SURROGATE);
      const shown = run.stdout
        .split("user: ")[1]!
        .replace(/…?\s*◀ active\n$/, "");
      // Whatever is kept is whole characters of the original.
      expect(text.startsWith(shown)).toBe(true);
      expect(shown.endsWith("\u200d")).toBe(false);
    },
  );
});
