// The transcript view in real Chromium over an imported Claude Code session (POST /v1/import of
// a file written here): tool calls as one line, runs of them grouped, string inputs as written,
// long outputs folded, Markdown rendered without letting HTML from the message in, a subagent
// call linked to the subagent's session, the conversation's own times and unknown usage.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureChromium, launchBrowser } from "./support/browser.js";
import { buildStudioInto, temporaryFolder } from "./support/harness.js";
import {
  startStudioServer,
  type StudioServer,
} from "./support/studio-server.js";

const available = ensureChromium();

const SESSION = "7e3f0c2a-1b2c-4d5e-8f90-123456789abc";
const WRITTEN_FILE = "export const one = 1;\nexport const two = 2;\n";
const LONG_OUTPUT = Array.from({ length: 120 }, (_, i) => `line ${i + 1}`).join(
  "\n",
);
const SUBAGENT_PROMPT = "Find every caller of parseDate in src/.";
const MARKDOWN = [
  "## The plan",
  "",
  "- first **step**",
  "- second step with `code`",
  "",
  "```ts",
  "const x = 1;",
  "```",
  "",
  "See [the docs](https://example.org/docs).",
  "",
  '<img src="x" onerror="window.__injected = 1"> <script>window.__injected = 2</script>',
  "[click me](javascript:window.__injected=3)",
].join("\n");

/** A Claude Code transcript: prompt, Markdown answer, three tool calls, a subagent call and its run. */
function transcript(): string {
  let at = Date.parse("2026-11-21T14:01:00.000Z");
  let previous: string | null = null;
  const lines: unknown[] = [];
  const add = (
    uuid: string,
    type: "user" | "assistant",
    content: unknown,
    extra: Record<string, unknown> = {},
  ) => {
    lines.push({
      parentUuid: previous,
      isSidechain: false,
      sessionId: SESSION,
      type,
      uuid,
      timestamp: new Date((at += 1000)).toISOString(),
      message:
        type === "user"
          ? { role: "user", content }
          : { id: `msg-${uuid}`, role: "assistant", model: "claude", content },
      ...extra,
    });
    previous = uuid;
  };
  const call = (
    uuid: string,
    id: string,
    name: string,
    input: unknown,
    output: string,
  ) => {
    add(`${uuid}a`, "assistant", [{ type: "tool_use", id, name, input }]);
    add(`${uuid}r`, "user", [
      { type: "tool_result", tool_use_id: id, content: output },
    ]);
  };
  add("u1", "user", "Tidy up the date helpers.");
  add("a1", "assistant", [{ type: "text", text: MARKDOWN }]);
  call(
    "t1",
    "toolu_read",
    "Read",
    { file_path: "/repo/src/dates.ts" },
    "1\texport {}",
  );
  call(
    "t2",
    "toolu_bash",
    "Bash",
    { command: "npm test", description: "Run tests" },
    LONG_OUTPUT,
  );
  call(
    "t3",
    "toolu_write",
    "Write",
    { file_path: "/repo/src/consts.ts", content: WRITTEN_FILE },
    "File written",
  );
  add("a2", "assistant", [{ type: "text", text: "Now the callers." }]);
  call(
    "t4",
    "toolu_task",
    "Task",
    { description: "Find callers", prompt: SUBAGENT_PROMPT },
    "Two callers.",
  );
  add("a3", "assistant", [{ type: "text", text: "Done." }]);
  // The subagent's run: sidechain lines, their own conversation.
  const main = previous;
  previous = null;
  for (const [uuid, type, text] of [
    ["s1", "user", SUBAGENT_PROMPT],
    ["s2", "assistant", "Two callers: src/orders.ts:14 and src/report.ts:88."],
  ] as const) {
    add(uuid, type, type === "user" ? text : [{ type: "text", text }], {
      isSidechain: true,
    });
  }
  previous = main;
  return lines.map((line) => JSON.stringify(line)).join("\n") + "\n";
}

describe.skipIf(!available)("studio transcript in Chromium", () => {
  let folder: Awaited<ReturnType<typeof temporaryFolder>>;
  let server: StudioServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let mainId: string;
  let subagentId: string;

  beforeAll(async () => {
    folder = await temporaryFolder();
    buildStudioInto(join(folder.path, "studio"));
    server = await startStudioServer(
      join(folder.path, "studio.db"),
      join(folder.path, "studio"),
    );
    const response = await fetch(
      `${server.url}/v1/import?fileName=session.jsonl`,
      {
        method: "POST",
        headers: { "content-type": "application/x-ndjson" },
        body: transcript(),
      },
    );
    const imported = (await response.json()) as {
      sessions: Array<{ id: string; parent_session_id: string | null }>;
    };
    expect(response.status).toBe(201);
    mainId = imported.sessions.find((s) => s.parent_session_id === null)!.id;
    subagentId = imported.sessions.find(
      (s) => s.parent_session_id === mainId,
    )!.id;
    browser = await launchBrowser();
    page = await browser.context.newPage();
    await page.goto(`${server.url}/#/s/${encodeURIComponent(mainId)}/chat`);
    await page.waitForSelector(".chat .message");
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await folder?.remove();
  });

  it("renders Markdown and never lets HTML or script links from the message in", async () => {
    const text = page.locator(".part-text.markdown:has(h2)");
    expect(await text.locator("h2").innerText()).toBe("The plan");
    expect(await text.locator("li").count()).toBe(2);
    expect(await text.locator("li strong").innerText()).toBe("step");
    expect(await text.locator("pre.md-code").innerText()).toBe("const x = 1;");
    expect(
      await text.locator('a[href="https://example.org/docs"]').innerText(),
    ).toBe("the docs");
    expect(await page.evaluate("window.__injected")).toBeUndefined();
    expect(await page.locator("main img, main script").count()).toBe(0);
    expect(await page.locator('main a[href^="javascript"]').count()).toBe(0);
    const shown = await text.innerText();
    expect(shown).toContain('<img src="x" onerror="window.__injected = 1">');
    expect(shown).toContain("click me");
  });

  it("groups a run of tool-only messages into one line, each call one line that opens", async () => {
    const run = page.locator(".message.tool-run").first();
    expect(
      (await run.locator("summary").first().innerText()).replace(/\s+/g, " "),
    ).toContain("3 tool calls: Read, Bash, Write");
    await run.locator("summary").first().click();
    const calls = run.locator(".part-tool");
    await calls.first().waitFor();
    expect(await calls.count()).toBe(3);
    const read = await calls.nth(0).locator("summary").textContent();
    expect(read!.replace(/\s+/g, " ")).toBe(
      "tool Read /repo/src/dates.ts done",
    );
    expect(await calls.nth(0).getAttribute("open")).toBeNull();
  });

  it("shows string inputs as written and folds long outputs", async () => {
    const run = page.locator(".message.tool-run").first();
    const write = run.locator('.part-tool[data-tool="Write"]');
    await write.locator("summary").click();
    const content = write.locator(".tool-input").nth(1);
    expect(await content.textContent()).toBe(WRITTEN_FILE);
    const bash = run.locator('.part-tool[data-tool="Bash"]');
    await bash.locator("summary").click();
    const output = bash.locator(".tool-output");
    expect((await output.textContent())!.split("\n").length).toBeLessThan(20);
    await bash.locator("button.unfold").click();
    await expect.poll(() => output.textContent()).toBe(LONG_OUTPUT);
  });

  it("links a subagent call to the subagent's session", async () => {
    const link = page.locator(".subagent-link");
    expect(await link.count()).toBe(1);
    expect(await link.getAttribute("href")).toBe(
      `#/s/${encodeURIComponent(subagentId)}/chat`,
    );
    await link.click();
    await page
      .locator(".chat .message", { hasText: SUBAGENT_PROMPT })
      .first()
      .waitFor();
    // The subagent's messages can show before its header replaces the parent's (the newest
    // window is drawn first): wait for the header rather than reading it once.
    await expect
      .poll(() => page.locator("h1").innerText())
      .toContain("subagent");
    await expect
      .poll(() =>
        page.locator('.facts a:has-text("the parent session")').count(),
      )
      .toBe(1);
  });

  it("shows the conversation's own times and unknown token usage", async () => {
    await page.goto(`${server.url}/#/s/${encodeURIComponent(mainId)}/chat`);
    // The page came from the subagent's session: wait for this session's own first prompt.
    await page
      .locator(".chat .message", { hasText: "Tidy up the date helpers." })
      .first()
      .waitFor();
    const factsText = async () =>
      (await page.locator(".facts").innerText()).replace(/\s+/g, " ");
    await expect
      .poll(factsText)
      .toContain("Imported from claude-code (session.jsonl)");
    const facts = await factsText();
    expect(facts).toContain("Tokens in / out unknown");
    expect(facts).toMatch(/Started Nov 21, 2026/);
    // The newest window draws before the tree is read; a message that does not carry its own
    // time takes the stored one from the tree when the tree is in.
    await expect
      .poll(() =>
        page.locator(".chat .message time").first().getAttribute("datetime"),
      )
      .toMatch(/^2026-11-21T14:0/);
  });

  it("marks an answer cut short as such: an interrupted ChatGPT answer says so, a finished one nothing", async () => {
    const response = await fetch(
      `${server.url}/v1/import?fileName=conversations.json`,
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: readFileSync(
          new URL("../formats/fixtures/chatgpt-browsing.json", import.meta.url),
        ),
      },
    );
    expect(response.status).toBe(201);
    const [chat] = (
      (await response.json()) as { sessions: Array<{ id: string }> }
    ).sessions;
    await page.goto(`${server.url}/#/s/${encodeURIComponent(chat!.id)}/chat`);
    // Only the address's hash changes, so the last session's messages are still drawn until
    // this one's arrive: wait for its own text.
    await page.waitForSelector(
      '.chat .message:has-text("The central stretch is flat")',
    );
    const marked = page.locator(".chat .message:has(.partial-mark)");
    expect(await marked.count()).toBe(1);
    expect(await marked.locator(".partial-mark").innerText()).toBe(
      "interrupted",
    );
    expect(await marked.locator(".parts").innerText()).toContain(
      "The central stretch is flat, so",
    );
    expect(
      await page.locator(".chat .message:not(:has(.partial-mark))").count(),
    ).toBeGreaterThan(3);
  });

  it("shows the import report when a dropped file was imported before", async () => {
    await page.goto(`${server.url}/#/`);
    await page.waitForSelector("tbody tr");
    const transfer = await page.evaluateHandle(
      `(() => {
        const data = new DataTransfer();
        data.items.add(new File([${JSON.stringify(transcript())}], "session.jsonl"));
        return data;
      })()`,
    );
    await page.dispatchEvent("main", "dragenter", { dataTransfer: transfer });
    await page.dispatchEvent("main", "drop", { dataTransfer: transfer });
    const report = page.locator(".import-panel .import-report");
    await report.waitFor();
    const text = (await report.innerText()).replace(/\s+/g, " ");
    expect(text).toContain("0 created · 0 updated · 2 skipped");
    expect(text).toContain("imported before");
    expect(
      await report
        .locator(`a[href="#/s/${encodeURIComponent(mainId)}/chat"]`)
        .count(),
    ).toBe(1);
  });
});
