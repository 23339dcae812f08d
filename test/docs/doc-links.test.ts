// Every relative link in the repository's Markdown points at a file that exists and, with an
// anchor, at a heading that exists (GitHub's anchor rules), so docs cannot rot silently when a
// page or heading is renamed. The generated API reference (docs/api) is checked by its own test.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PAGES = [
  "README.md",
  "ARCHITECTURE.md",
  "CONTRIBUTING.md",
  "CHANGELOG.md",
  ...markdownUnder("docs").filter((page) => !page.startsWith("docs/api/")),
  ...markdownUnder("test"),
].filter((page) => existsSync(join(ROOT, page)));

describe("links in Markdown", () => {
  it.each(PAGES)("%s links to files and headings that exist", (page) => {
    const broken: string[] = [];
    for (const target of relativeLinks(read(page))) {
      const [path = "", anchor] = target.split("#");
      const file = path === "" ? page : join(dirname(page), path);
      if (!existsSync(join(ROOT, file))) {
        broken.push(`${target} (no file ${file})`);
      } else if (anchor && file.endsWith(".md") && !anchors(file).has(anchor)) {
        broken.push(`${target} (no heading #${anchor} in ${file})`);
      }
    }
    expect(broken).toEqual([]);
  });
});

// --- Internal helpers ---

function read(page: string): string {
  return readFileSync(join(ROOT, page), "utf8");
}

function markdownUnder(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: "utf8" })
    .map((file) => join(folder, file))
    .filter(
      (file) => file.endsWith(".md") && statSync(join(ROOT, file)).isFile(),
    )
    .map((file) => relative(ROOT, join(ROOT, file)));
}

/** Markdown text without fenced code blocks and inline code. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "");
}

/** Targets of `[text](target)` links that are neither absolute URLs nor mail links. */
function relativeLinks(markdown: string): string[] {
  const targets: string[] = [];
  for (const match of prose(markdown).matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = match[1]!;
    if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) targets.push(target);
  }
  return targets;
}

/** The anchors GitHub gives a page's headings (code fences skipped, duplicates numbered). */
function anchors(page: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  const text = read(page).replace(/^```[\s\S]*?^```/gm, "");
  for (const match of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = match[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}
