import {
  createWriteStream,
  existsSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { temporaryFolder } from "./support/folder.js";
// In-process: main() itself, no subprocess per command (help.test.ts runs the built bin).
import { runCliInProcess as runCli } from "./support/in-process.js";
import { seedBranchedDatabase, type Seeded } from "./support/seed.js";
import { writeZip } from "../formats/zip-writer.js";

const CHATGPT = fileURLToPath(
  new URL("./fixtures/chatgpt-conversations.json", import.meta.url),
);

describe("arbor import and export", () => {
  const folder = temporaryFolder();
  const path = (name: string) => join(folder.path, name);
  afterAll(() => folder.remove());

  describe("a ChatGPT export", () => {
    const db = path("chatgpt.db");
    let sessionId: string;

    beforeAll(async () => {
      const run = await runCli(["import", CHATGPT, "--db", db]);
      expect(run.stderr).toContain("importing: 3/3");
      expect(run.code).toBe(0);
      expect(run.stderr).toContain(
        "Imported 1 session(s), 3 message(s) (chatgpt).",
      );
      const line = /^(\S+) {2}Sourdough starter$/m.exec(run.stdout);
      expect(line).not.toBeNull();
      sessionId = line![1]!;
    });

    it("keeps both answers as branches, on the conversation's current node", async () => {
      const run = await runCli(["tree", sessionId, "--db", db]);
      expect(run.stdout).toBe(
        [
          "● u1 user: How often should I feed a sourdough starter?",
          "├─○ a1 assistant: Once a day at room temperature.",
          "└─● a2 assistant: Every 12 hours when it lives on the counter; weekly when it is refriger…  ◀ active",
          "",
        ].join("\n"),
      );
    });

    it("reads either branch's history and finds it by search", async () => {
      const active = await runCli(["history", sessionId, "--db", db]);
      expect(active.stdout).toContain("── assistant · a2\nEvery 12 hours");
      const other = await runCli([
        "history",
        sessionId,
        "--leaf",
        "a1",
        "--db",
        db,
      ]);
      expect(other.stdout).toBe(
        "── user · u1\nHow often should I feed a sourdough starter?\n\n── assistant · a1\nOnce a day at room temperature.\n",
      );
      const search = await runCli([
        "search",
        "refrigerated",
        "--db",
        db,
        "--json",
      ]);
      const { results } = JSON.parse(search.stdout) as {
        results: Array<{ id: string; sessionId: string }>;
      };
      expect(results.map((result) => [result.sessionId, result.id])).toEqual([
        [sessionId, "a2"],
      ]);
    });

    it("--name names the imported session", async () => {
      const run = await runCli([
        "import",
        CHATGPT,
        "--name",
        "Bread",
        "--format",
        "chatgpt",
        "--db",
        path("named.db"),
      ]);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^\S+ {2}Bread\n$/);
    });

    it("skips the conversation when imported again with nothing new, and skips or replaces on request", async () => {
      const again = await runCli(["import", CHATGPT, "--db", db]);
      expect(again.code).toBe(0);
      expect(again.stdout).toBe("");
      expect(again.stderr).toContain("Created 0, updated 0, skipped 1.");
      expect(again.stderr).toContain(
        `Skipped "Sourdough starter": imported before as ${sessionId}, nothing new (--existing replace writes it again)`,
      );
      const skip = await runCli([
        "import",
        CHATGPT,
        "--existing",
        "skip",
        "--db",
        db,
      ]);
      expect(skip.stderr).toContain("Created 0, updated 0, skipped 1.");
      expect(skip.stdout).toBe("");
      const bad = await runCli(["import", CHATGPT, "--existing", "merge"]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain("--existing takes skip, replace, update");
      const list = await runCli(["sessions", "list", "--db", db, "--json"]);
      expect(
        (JSON.parse(list.stdout) as { sessions: unknown[] }).sessions,
      ).toHaveLength(1);
    });
  });

  describe("the formats of other tools", () => {
    const formats = (name: string) =>
      fileURLToPath(new URL(`../formats/fixtures/${name}`, import.meta.url));

    it("imports a Codex rollout, detected from its content", async () => {
      const run = await runCli([
        "import",
        formats("codex-rollout-tools.jsonl"),
        "--db",
        path("codex.db"),
      ]);
      expect(run.code).toBe(0);
      expect(run.stderr).toContain(
        "Imported 1 session(s), 5 message(s) (codex).",
      );
      expect(run.stderr).toContain("Created 1, updated 0, skipped 0.");
      expect(run.stderr).toContain(
        "Skipped 1 item(s) of the file:\n  the file: encrypted reasoning",
      );
      const id = run.stdout.split(" ")[0]!;
      const markdown = await runCli([
        "export",
        id,
        "--format",
        "markdown",
        "--full-tool-output",
        "--db",
        path("codex.db"),
      ]);
      // The compaction's summary stands for the first turn; the web search is after it.
      expect(markdown.stdout).toContain("## Summary of earlier messages");
      expect(markdown.stdout).toContain(
        '**Tool `web_search`**\n\n```\n{\n  "type": "search",\n  "query": "Open-Meteo commercial use licence"\n}\n```',
      );
    });

    it("prints the import report of a ChatGPT export", async () => {
      const run = await runCli([
        "import",
        formats("chatgpt-browsing.json"),
        "--db",
        path("browsing.db"),
      ]);
      expect(run.code).toBe(0);
      expect(run.stderr).toContain("Skipped 5 item(s) of the file:");
      expect(run.stderr).toContain(
        'conversation "Liberdade bike lane" node "b-ctx": user_editable_context (custom instructions',
      );
    });

    it("--lenient imports a trimmed file, with a warning; without it the error says how", async () => {
      const file = formats("bad-missing-parent.pi.jsonl");
      const strict = await runCli(["import", file, "--db", path("pi.db")]);
      expect(strict.code).toBe(1);
      expect(strict.stderr).toContain("import it with lenient");
      const lenient = await runCli([
        "import",
        file,
        "--lenient",
        "--db",
        path("pi.db"),
      ]);
      expect(lenient.code).toBe(0);
      expect(lenient.stderr).toContain(
        'Warning: line 7: the parent "deadbeef" of "t1000001" is not in the file; attached to the root',
      );
    });

    it("imports the ChatGPT export zip as downloaded", async () => {
      const file = path("chatgpt-export.zip");
      writeFileSync(
        file,
        writeZip([
          { name: "user.json", data: Buffer.from("{}") },
          {
            name: "conversations.json",
            data: readFileSync(formats("chatgpt-conversations.json")),
          },
          { name: "file-xyz.png", data: Buffer.alloc(64), store: true },
        ]),
      );
      const run = await runCli(["import", file, "--db", path("zip.db")]);
      expect(run.code).toBe(0);
      expect(run.stderr).toContain(
        "Imported 2 session(s), 10 message(s) (chatgpt).",
      );
      expect(run.stdout).toMatch(
        / {2}Lisbon weekend plan\n\S+ {2}Regex for dates\n$/,
      );
    });

    it("streams a large export with bounded memory", async () => {
      // 48 MB of conversations under a 64 MB heap: reading the file whole cannot fit.
      const file = path("large-conversations.json");
      const out = createWriteStream(file);
      const text = "The quick brown fox jumps over the lazy dog. ".repeat(1100);
      const count = 480;
      out.write("[");
      for (let index = 0; index < count; index++) {
        const node = (id: string, role: string, parent: string | null) => ({
          id,
          parent,
          children: [],
          message: {
            id,
            author: { role },
            create_time: 1733000000 + index,
            content: { content_type: "text", parts: [`${index} ${text}`] },
            metadata: {},
            recipient: "all",
          },
        });
        const conversation = {
          title: `Chat ${index}`,
          create_time: 1733000000 + index,
          update_time: 1733000000 + index,
          conversation_id: `big-${index}`,
          current_node: `a${index}`,
          mapping: {
            [`u${index}`]: node(`u${index}`, "user", null),
            [`a${index}`]: node(`a${index}`, "assistant", `u${index}`),
          },
        };
        const chunk = `${index === 0 ? "" : ","}${JSON.stringify(conversation)}`;
        if (!out.write(chunk))
          await new Promise<void>((resolve) => out.once("drain", resolve));
      }
      out.end("]");
      await new Promise<void>((resolve) => out.once("finish", resolve));
      expect(statSync(file).size).toBeGreaterThan(45_000_000);
      const run = await runCli(["import", file, "--db", path("large.db")], {
        env: { NODE_OPTIONS: "--max-old-space-size=64" },
      });
      expect(run.stderr).toContain(
        `Imported ${count} session(s), ${2 * count} message(s) (chatgpt).`,
      );
      expect(run.code).toBe(0);
    }, 120_000);

    it("says an empty file is empty", async () => {
      const file = path("empty.json");
      writeFileSync(file, "\n\n");
      const run = await runCli(["import", file, "--db", path("empty.db")]);
      expect(run.code).toBe(1);
      expect(run.stderr).toBe("arbor: INVALID_IMPORT: the file is empty\n");
    });
  });

  describe("export then import", () => {
    const source = path("source.db");
    let seeded: Seeded;
    beforeAll(async () => {
      seeded = await seedBranchedDatabase(source);
    });

    // Both formats keep which branch was active, also when it is not the newest one.
    it.each(["jsonl", "snapshot"] as const)(
      "round-trips every branch, the overlay and the active leaf through %s",
      async (format) => {
        const file = path(`trip.${format}`);
        const target = path(`target-${format}.db`);
        const exported = await runCli([
          "export",
          seeded.sessionId,
          "--format",
          format,
          "--out",
          file,
          "--db",
          source,
        ]);
        expect(exported.code).toBe(0);
        expect(exported.stderr).toBe(`Wrote ${file}\n`);

        const imported = await runCli(["import", file, "--db", target]);
        expect(imported.code).toBe(0);
        const newId = imported.stdout.split(" ")[0]!;
        expect(newId).not.toBe(seeded.sessionId);
        const before = await runCli(["tree", seeded.sessionId, "--db", source]);
        const after = await runCli(["tree", newId, "--db", target]);
        const comparable = (text: string) =>
          text.replace(/summary \S+ covers/, "summary covers");
        expect(comparable(after.stdout)).toBe(comparable(before.stdout));
        expect(after.stdout).toContain("covers u1 … a1");
      },
    );

    it("writes to stdout without --out, and markdown follows --leaf", async () => {
      const jsonl = await runCli(["export", seeded.sessionId, "--db", source]);
      const lines = jsonl.stdout
        .trim()
        .split("\n")
        .map(
          (line) => JSON.parse(line) as { type: string; activeLeafId?: string },
        );
      expect(lines[0]).toMatchObject({
        type: "session",
        format: "arbor.jsonl",
        activeLeafId: "a2",
      });
      expect(lines.filter((line) => line.type === "message")).toHaveLength(6);

      const markdown = await runCli([
        "export",
        seeded.sessionId,
        "--format",
        "markdown",
        "--leaf",
        "u3",
        "--db",
        source,
      ]);
      expect(markdown.code).toBe(0);
      expect(markdown.stdout).toContain("# Deployment planning");
      expect(markdown.stdout).toContain(
        "Thursday is possible if QA signs off by Wednesday.",
      );
      expect(markdown.stdout).not.toContain("Thursday works");
    });

    it("export --all writes one file per session", async () => {
      const out = path("all");
      const run = await runCli([
        "export",
        "--all",
        "--out",
        out,
        "--db",
        source,
      ]);
      expect(run.code).toBe(0);
      expect(readdirSync(out).sort()).toEqual(
        [
          `${seeded.sessionId}.arbor.jsonl`,
          `${seeded.otherSessionId}.arbor.jsonl`,
        ].sort(),
      );
      expect(run.stderr).toContain("Exported 2 session(s)");
    });

    it("refuses --all without --out, a session id with --all, an unknown format and --leaf of a snapshot, with exit code 2", async () => {
      expect((await runCli(["export", "--all", "--db", source])).code).toBe(2);
      expect(
        (
          await runCli([
            "export",
            seeded.sessionId,
            "--all",
            "--out",
            path("x"),
            "--db",
            source,
          ])
        ).code,
      ).toBe(2);
      expect(
        (
          await runCli([
            "export",
            seeded.sessionId,
            "--format",
            "pdf",
            "--db",
            source,
          ])
        ).stderr,
      ).toContain('--format takes jsonl, snapshot, markdown; got "pdf"');
      const leafOfSnapshot = await runCli([
        "export",
        seeded.sessionId,
        "--format",
        "snapshot",
        "--leaf",
        "u3",
        "--db",
        source,
      ]);
      expect(leafOfSnapshot.code).toBe(2);
      expect(leafOfSnapshot.stderr).toContain("--leaf picks one branch");
    });
  });

  describe("a bad file", () => {
    it("fails with exit 1, names the line, and creates no database", async () => {
      const file = path("broken.arbor.jsonl");
      const db = path("never.db");
      const header = JSON.stringify({
        type: "session",
        format: "arbor.jsonl",
        version: 1,
        sessionId: "s",
        name: "Broken",
        exportedAt: "2026-12-01T00:00:00.000Z",
        activeLeafId: null,
      });
      writeFileSync(file, `${header}\n{"type":"message","id":"m1",\n`);
      const run = await runCli(["import", file, "--db", db]);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe("");
      expect(run.stderr).toMatch(/^arbor: INVALID_IMPORT: .*line 2/);
      expect(run.stderr).not.toContain("    at ");
      expect(existsSync(db)).toBe(false);
    });

    it("writes nothing into an existing database", async () => {
      const db = path("existing.db");
      await runCli(["import", CHATGPT, "--db", db]);
      const broken = JSON.parse(readFileSync(CHATGPT, "utf8")) as Array<{
        mapping: Record<string, { parent: string | null }>;
      }>;
      // A second conversation whose node points at a parent that does not exist.
      broken.push({
        ...broken[0]!,
        mapping: {
          ...broken[0]!.mapping,
          a1: { ...broken[0]!.mapping.a1!, parent: "ghost" },
        },
      });
      const file = path("broken-chatgpt.json");
      writeFileSync(file, JSON.stringify(broken));
      const run = await runCli(["import", file, "--db", db]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("INVALID_IMPORT");
      const list = await runCli(["sessions", "list", "--db", db, "--json"]);
      expect(
        (JSON.parse(list.stdout) as { sessions: unknown[] }).sessions,
      ).toHaveLength(1);
    });

    it("names a missing file", async () => {
      const run = await runCli([
        "import",
        path("nope.json"),
        "--db",
        path("nope.db"),
      ]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`Cannot read ${path("nope.json")}`);
    });
  });
});
