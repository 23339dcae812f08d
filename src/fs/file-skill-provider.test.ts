import {
  mkdir,
  mkdtemp,
  readFile,
  readdir,
  rm,
  symlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isArborError } from "../session/errors/index.js";
import { FileSkillProvider } from "./index.js";

let sandbox: string;
let root: string;
let outside: string;

beforeEach(async () => {
  sandbox = await mkdtemp(join(tmpdir(), "arbor-fs-"));
  root = join(sandbox, "skills");
  outside = join(sandbox, "outside");
  await mkdir(root);
  await mkdir(outside);
  await writeFile(join(outside, "secret.md"), "# Secret\ntop secret");
  // A file right next to the root, the target of `../x`-style keys.
  await writeFile(join(sandbox, "x.md"), "# Sibling\nnot a skill");
});

afterEach(async () => {
  await rm(sandbox, { recursive: true, force: true });
});

async function put(relativePath: string, text: string): Promise<void> {
  const path = join(root, relativePath);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
}

async function expectRejected(
  action: Promise<unknown>,
  fragment = "[arbor] [fs]",
): Promise<void> {
  const error = await action.then(
    () => {
      throw new Error("expected a rejection");
    },
    (reason: unknown) => reason,
  );
  expect(isArborError(error)).toBe(true);
  expect(error).toBeInstanceOf(TypeError);
  expect((error as { code: string }).code).toBe("INVALID_ARGUMENT");
  expect((error as Error).message).toContain(fragment);
}

/** Every file under the sandbox, to prove a refused write created nothing. */
async function sandboxFiles(): Promise<string[]> {
  const entries = await readdir(sandbox, { recursive: true });
  return entries.map(String).sort();
}

describe("FileSkillProvider.get()", () => {
  it("lists skills sorted by key, with descriptions from front matter or the first heading", async () => {
    await put(
      "deploy.md",
      "---\ntitle: Deploy\ndescription: How to ship a release\n---\n\n# Deploying\nSteps.",
    );
    await put("api/errors.md", "Intro text.\n\n## Error codes\nThe table.");
    await put(
      "api/auth.md",
      "---\ndescription: 'Tokens: how they''re issued'\n---\nBody",
    );
    await put("plain.md", "No heading at all.");
    await put("Zeta.md", "# Capital letters sort first ###");
    await put("notes.txt", "not markdown");
    await put(".hidden.md", "# Hidden");
    await put(".git/config.md", "# Git internals");

    const provider = new FileSkillProvider(root);

    expect(await provider.get()).toBe(
      [
        "- Zeta: Capital letters sort first",
        "- api/auth: Tokens: how they're issued",
        "- api/errors: Error codes",
        "- deploy: How to ship a release",
        "- plain",
      ].join("\n"),
    );
  });

  it("reads double-quoted, folded and commented descriptions, and skips headings in code fences", async () => {
    await put(
      "quoted.md",
      '---\ndescription: "Line one\\nline \\"two\\""\n---\n',
    );
    await put(
      "folded.md",
      "---\ndescription: >\n  Folded over\n  two lines\nother: x\n---\n",
    );
    await put("comment.md", "---\ndescription: Plain text # a comment\n---\n");
    await put("empty.md", "---\ndescription:\n---\n# Heading wins\n");
    await put("fenced.md", "```md\n# Not this\n```\n\n# This one\n");
    await put(
      "crlf.md",
      "\uFEFF---\r\ndescription: Windows file\r\n---\r\nBody",
    );

    expect(await new FileSkillProvider(root).get()).toBe(
      [
        "- comment: Plain text",
        "- crlf: Windows file",
        "- empty: Heading wins",
        "- fenced: This one",
        "- folded: Folded over two lines",
        '- quoted: Line one line "two"',
      ].join("\n"),
    );
  });

  it("is null for an empty or missing directory", async () => {
    expect(await new FileSkillProvider(root).get()).toBeNull();
    expect(await new FileSkillProvider(join(sandbox, "nope")).get()).toBeNull();
  });

  it("honours extensions, preferring the first one when two files share a key", async () => {
    await put("a.md", "# From md");
    await put("a.markdown", "# From markdown");
    await put("b.markdown", "# Only markdown");
    await put("c.txt", "# Text");

    const provider = new FileSkillProvider(root, {
      extensions: [".md", ".markdown"],
    });

    expect(await provider.get()).toBe("- a: From md\n- b: Only markdown");
    expect(await provider.load("a")).toBe("# From md");
    expect(await provider.load("b")).toBe("# Only markdown");
    expect(await provider.load("c")).toBeNull();
  });

  it("with recursive: false, only top-level files are skills", async () => {
    await put("top.md", "# Top");
    await put("nested/deep.md", "# Deep");
    const provider = new FileSkillProvider(root, { recursive: false });

    expect(await provider.get()).toBe("- top: Top");
    expect(await provider.load("nested/deep")).toBeNull();
    await expectRejected(provider.set("nested/new", "x"), "recursive");
  });

  it("rejects invalid extensions", () => {
    for (const extensions of [[], ["md"], ["./md"], [".."]]) {
      expect(() => new FileSkillProvider(root, { extensions })).toThrow(
        "[arbor] [fs]",
      );
    }
  });
});

describe("FileSkillProvider.load()", () => {
  it("returns the text without its front matter", async () => {
    await put(
      "with.md",
      "---\ndescription: Has front matter\n---\n\n# Title\nBody\n",
    );
    await put("without.md", "# Title\nBody\n");
    const provider = new FileSkillProvider(root);

    expect(await provider.load("with")).toBe("# Title\nBody\n");
    expect(await provider.load("without")).toBe("# Title\nBody\n");
  });

  it("returns null for a missing key, a folder, or a key with its extension", async () => {
    await put("guides/deploy.md", "x");
    const provider = new FileSkillProvider(root);

    expect(await provider.load("missing")).toBeNull();
    expect(await provider.load("guides")).toBeNull();
    expect(await provider.load("guides/deploy.md")).toBeNull();
    expect(await provider.load("guides/deploy")).toBe("x");
  });
});

describe("FileSkillProvider.set()", () => {
  it("writes the description as front matter; load() gives back the content exactly", async () => {
    const provider = new FileSkillProvider(root);

    await provider.set(
      "guides/deploy",
      "# Deploy\nRun it.\n",
      'Ship: "safely"',
    );

    expect(await readFile(join(root, "guides/deploy.md"), "utf8")).toBe(
      '---\ndescription: "Ship: \\"safely\\""\n---\n\n# Deploy\nRun it.\n',
    );
    expect(await provider.load("guides/deploy")).toBe("# Deploy\nRun it.\n");
    expect(await provider.get()).toBe('- guides/deploy: Ship: "safely"');
  });

  it("without a description writes the content as is and replaces the old file", async () => {
    const provider = new FileSkillProvider(root);
    await provider.set("style", "old", "Old description");

    await provider.set("style", "Be terse.");

    expect(await readFile(join(root, "style.md"), "utf8")).toBe("Be terse.");
    expect(await provider.get()).toBe("- style");
    // No temporary files are left behind.
    expect(await readdir(root)).toEqual(["style.md"]);
  });

  it("creates a missing root directory", async () => {
    const provider = new FileSkillProvider(join(sandbox, "new/skills"));
    await provider.set("first", "hello", "First skill");
    expect(await provider.get()).toBe("- first: First skill");
  });

  it("updates an existing file under its own extension", async () => {
    await put("a.markdown", "old");
    const provider = new FileSkillProvider(root, {
      extensions: [".md", ".markdown"],
    });

    await provider.set("a", "new");

    expect(await readFile(join(root, "a.markdown"), "utf8")).toBe("new");
    expect(await readdir(root)).toEqual(["a.markdown"]);
  });

  it("refuses non-string content with a typed error", async () => {
    const provider = new FileSkillProvider(root);
    // @ts-expect-error -- content a JavaScript caller can pass
    await expectRejected(provider.set("a", 42));
  });
});

describe("FileSkillProvider path traversal", () => {
  const traversals = [
    "../x",
    "a/../../x",
    "a/../x",
    "./x",
    "..",
    "/etc/passwd",
    "//etc/passwd",
    "C:/Windows/win",
    "..\\x",
    "a\\..\\..\\x",
    "x\0",
    "a//b",
    "a/",
    "",
    ".hidden",
  ];

  it.each(traversals)("load(%j) is null and set(%j) throws", async (key) => {
    const provider = new FileSkillProvider(root);
    const before = await sandboxFiles();

    expect(await provider.load(key)).toBeNull();
    await expectRejected(provider.set(key, "pwned"));

    expect(await sandboxFiles()).toEqual(before);
    expect(await readFile(join(sandbox, "x.md"), "utf8")).toBe(
      "# Sibling\nnot a skill",
    );
  });

  it("an absolute path to a real file outside is refused", async () => {
    const provider = new FileSkillProvider(root);
    const absolute = join(outside, "secret");
    expect(await provider.load(absolute)).toBeNull();
    await expectRejected(provider.set(absolute, "pwned"));
    expect(await readFile(`${absolute}.md`, "utf8")).toBe(
      "# Secret\ntop secret",
    );
  });

  it("percent-encoded dots stay literal names inside the directory", async () => {
    const provider = new FileSkillProvider(root);

    expect(await provider.load("%2e%2e/x")).toBeNull();
    await provider.set("%2e%2e/x", "literal");

    expect(await readFile(join(root, "%2e%2e", "x.md"), "utf8")).toBe(
      "literal",
    );
    expect(await provider.load("%2e%2e/x")).toBe("literal");
    expect(await readFile(join(sandbox, "x.md"), "utf8")).toBe(
      "# Sibling\nnot a skill",
    );
  });

  it("a file symlink pointing outside is not listed, loaded or written through", async () => {
    await symlink(join(outside, "secret.md"), join(root, "leak.md"));
    await put("ok.md", "# Fine");
    const provider = new FileSkillProvider(root);

    expect(await provider.get()).toBe("- ok: Fine");
    expect(await provider.load("leak")).toBeNull();
    await expectRejected(provider.set("leak", "pwned"), "outside");
    expect(await readFile(join(outside, "secret.md"), "utf8")).toBe(
      "# Secret\ntop secret",
    );
  });

  it("a folder symlink pointing outside is not listed, loaded or written into", async () => {
    await symlink(outside, join(root, "linked"));
    const provider = new FileSkillProvider(root);
    const before = await readdir(outside);

    expect(await provider.get()).toBeNull();
    expect(await provider.load("linked/secret")).toBeNull();
    await expectRejected(provider.set("linked/secret", "pwned"), "outside");
    await expectRejected(provider.set("linked/new/deeper", "pwned"), "outside");
    expect(await readdir(outside)).toEqual(before);
    expect(await readFile(join(outside, "secret.md"), "utf8")).toBe(
      "# Secret\ntop secret",
    );
  });

  it("a dangling symlink is neither loaded nor replaced", async () => {
    await symlink(join(outside, "ghost.md"), join(root, "ghost.md"));
    const provider = new FileSkillProvider(root);

    expect(await provider.load("ghost")).toBeNull();
    await expectRejected(provider.set("ghost", "pwned"), "outside");
    expect(await readdir(outside)).toEqual(["secret.md"]);
  });

  it("symlinks that stay inside work, and a link cycle does not hang the listing", async () => {
    await put("real/guide.md", "# Guide");
    await symlink(join(root, "real"), join(root, "alias"));
    await symlink(join(root, "real", "guide.md"), join(root, "shortcut.md"));
    await symlink(root, join(root, "real", "loop"));
    const provider = new FileSkillProvider(root);

    expect(await provider.get()).toBe(
      ["- alias/guide: Guide", "- real/guide: Guide", "- shortcut: Guide"].join(
        "\n",
      ),
    );
    expect(await provider.load("alias/guide")).toBe("# Guide");
    await provider.set("shortcut", "# Guide v2");
    // Written through the link to its (inside) target.
    expect(await readFile(join(root, "real/guide.md"), "utf8")).toBe(
      "# Guide v2",
    );
  });

  it("a root that is itself a symlink is fine", async () => {
    await put("a.md", "# A");
    const linkedRoot = join(sandbox, "root-link");
    await symlink(root, linkedRoot);
    const provider = new FileSkillProvider(linkedRoot);

    expect(await provider.get()).toBe("- a: A");
    await provider.set("b", "B");
    expect(await readFile(join(root, "b.md"), "utf8")).toBe("B");
  });
});
