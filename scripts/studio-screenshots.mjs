// Takes the screenshots of docs/studio.md (docs/studio/*.png) from what a newcomer sees: the
// built CLI's `arbor serve` on a fresh database, which loads examples/sample/sample.arbor.jsonl
// ("Planning the Tidepool 2.0 launch"), driven by Debian's Chromium through playwright-core;
// then the transcripts of a real Claude Code session and a ChatGPT export imported into it
// (test/formats/fixtures, see their README for sources and licences), and a long generated one.
// Usage: npm run build && npm run docs:screenshots
// The ChatGPT export cites its sources in CJK brackets (【lisboa.pt】): a machine without a CJK
// font draws them as empty boxes, so install one first (Debian: apt-get install fonts-wqy-zenhei).
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const CLI = join(ROOT, "dist/cli/main.js");
const OUT = join(ROOT, "docs/studio");
const CHROMIUM_PATH = "/usr/bin/chromium";
// The flags of test/studio/support/browser.ts.
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const SAMPLE_NAME = "Planning the Tidepool 2.0 launch";
const SERVER_START_MS = 30_000;

if (!existsSync(CLI)) {
  console.error("dist/cli/main.js is missing: run npm run build first");
  process.exit(1);
}
if (!existsSync(CHROMIUM_PATH)) {
  console.error(`${CHROMIUM_PATH} is missing: apt-get install -y chromium`);
  process.exit(1);
}

const folder = await mkdtemp(join(tmpdir(), "arbor-screenshots-"));
const servers = [];
let context;
try {
  context = await chromium.launchPersistentContext(join(folder, "profile"), {
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
    viewport: DESKTOP,
    colorScheme: "light",
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.on("dialog", (dialog) => void dialog.dismiss());

  const sample = await startServer(join(folder, "sample.db"), []);
  servers.push(sample);
  await sampleViews(page, sample.url);
  await importedViews(page, sample.url);

  const empty = await startServer(join(folder, "empty.db"), ["--skip-sample"]);
  servers.push(empty);
  await open(page, empty.url, "#/", ".empty-state");
  await save(page, "empty");
} finally {
  await context?.close();
  for (const server of servers) await server.stop();
  await rm(folder, { recursive: true, force: true });
}

/** Every view of the sample conversation, in the order docs/studio.md shows them. */
async function sampleViews(page, url) {
  const { sessions } = await (await fetch(`${url}/v1/sessions`)).json();
  const session = sessions.find((s) => s.name === SAMPLE_NAME);
  if (!session)
    throw new Error(`the server did not load the sample ("${SAMPLE_NAME}")`);
  const at = (view) => `#/s/${encodeURIComponent(session.id)}/${view}`;

  await open(page, url, "#/", "tbody tr");
  await save(page, "sessions");

  // The conversation opens at its newest message.
  await openSession(page, url, at("chat"), ".chat .message");
  await save(page, "chat");

  // Up at the start: the overlay, expanded to the messages it replaces, scrolled to its top.
  await page.waitForFunction(
    () => (window.scrollTo(0, 0), document.querySelector(".message.overlay")),
    undefined,
    { polling: 100 },
  );
  await page.click('.message.overlay button[aria-expanded="false"]');
  await page.waitForSelector(".originals .message");
  await scrollToTop(page, ".message.overlay");
  await save(page, "overlay");

  await openSession(page, url, at("tree"), ".graph-canvas .node");
  await save(page, "tree");

  // The memory block's history: the versions, and the diff between the last two.
  await openSession(page, url, at("blocks"), '.block[data-label="memory"]');
  const memory = page.locator('.block[data-label="memory"]');
  await memory.locator('button:has-text("History")').click();
  await memory.locator(".versions li").first().waitFor();
  await memory.locator(".diff .diff-line").first().waitFor();
  // The title scrolled away: the facts, the tabs and the whole block fit in the window.
  await scrollToTop(page, ".session-page .facts", 8);
  await save(page, "blocks");

  await openSession(page, url, at("prompt"), ".prompt-view");
  await save(page, "prompt");

  // Editing the memory block: a draft and its live token count (nothing saved).
  await openSession(page, url, at("blocks"), '.block[data-label="memory"]');
  await page.click('.block[data-label="memory"] button.edit-block');
  await page.locator(".block-editor").waitFor();
  await page.keyboard.press("Control+End");
  await page.keyboard.type("\n- Prefers trains to planes");
  await scrollToTop(page, '.block[data-label="memory"]');
  await save(page, "block-edit");

  // Creating a block: the New block form filled in, its live count (nothing created).
  await openSession(page, url, at("blocks"), '.block[data-label="memory"]');
  await page.click("button.new-block");
  const form = page.locator("form.block-create-form");
  await form.waitFor();
  await form.locator('input[name="label"]').fill("launch-risks");
  await form
    .locator('input[name="description"]')
    .fill("Open risks for the Tidepool 2.0 launch");
  await form.locator('input[name="maxTokens"]').fill("400");
  await form
    .locator('textarea[name="content"]')
    .fill(
      "- Payment provider migration lands the week before launch\n- Support rota for launch weekend not staffed yet",
    );
  await scrollToTop(page, "form.block-create-form");
  await save(page, "block-create");

  // The context window with truncation keeping the last 4 messages and a 16,000-token budget.
  await openSession(
    page,
    url,
    `${at("context")}?budget=16000`,
    ".context-view",
  );
  await scrollToTop(page, ".context-settings", 8);
  await save(page, "context");

  await openSession(page, url, `${at("search")}?q=budget`, ".hits a.hit mark");
  await save(page, "search");

  await page.emulateMedia({ colorScheme: "dark" });
  await openSession(page, url, at("chat"), ".chat .message");
  await save(page, "chat-dark");
  await page.emulateMedia({ colorScheme: "light" });

  await page.setViewportSize(PHONE);
  await openSession(page, url, at("chat"), ".chat .message");
  await save(page, "chat-390");
  await page.setViewportSize(DESKTOP);
}

/** Conversations from other tools, imported as a user would drop them on the page. */
async function importedViews(page, url) {
  const imported = async (file) => {
    const body = await readFile(join(ROOT, "test/formats/fixtures", file));
    const response = await fetch(
      `${url}/v1/import?fileName=${encodeURIComponent(file)}`,
      { method: "POST", body },
    );
    if (!response.ok)
      throw new Error(`import of ${file}: ${await response.text()}`);
    const { sessions } = await response.json();
    return sessions.find((session) => session.parent_session_id === null);
  };
  const claude = await imported("claude-code-real-compacted.jsonl");
  const at = (session) => `#/s/${encodeURIComponent(session.id)}/chat`;
  // Before its compaction: a run of tool calls, one opened to its input and output.
  await openSession(page, url, at(claude), ".chat .message.overlay");
  await page.click('.message.overlay button[aria-expanded="false"]');
  await page.waitForSelector(".originals .message.tool-run");
  const run = page.locator(".originals .message.tool-run").nth(1);
  await run.locator("summary").first().click();
  await run.locator(".part-tool summary").first().click();
  await run.evaluate((element) =>
    window.scrollTo(0, element.getBoundingClientRect().top + scrollY - 120),
  );
  await page.waitForTimeout(100);
  await save(page, "transcript");

  const chatgpt = await imported("chatgpt-browsing.json");
  await openSession(page, url, at(chatgpt), ".chat .message");
  await save(page, "chatgpt");

  // A long history (600 messages, generated here): read from its newest window, the tabs a
  // sticky bar while the reader is deep in it; the last answer has a table, a task list and LaTeX.
  const long = await importText(url, "long-history.json", longHistory(600));
  await openSession(page, url, at(long), ".chat .message");
  await page.waitForSelector("main:not([aria-busy])");
  await page.evaluate(() => window.scrollBy(0, -700));
  await page.waitForTimeout(200);
  await save(page, "long-history");
}

/** Imports `text` as a file named `fileName`; the session it made. */
async function importText(url, fileName, text) {
  const response = await fetch(
    `${url}/v1/import?fileName=${encodeURIComponent(fileName)}`,
    {
      method: "POST",
      body: text,
      headers: { "content-type": "application/octet-stream" },
    },
  );
  if (!response.ok)
    throw new Error(`import of ${fileName}: ${await response.text()}`);
  return (await response.json()).sessions[0];
}

/** An OpenAI message array of `count` messages about a trip, as a long chat reads. */
function longHistory(count) {
  const messages = [];
  for (let index = 0; index < count - 2; index += 2) {
    const day = index / 2 + 1;
    messages.push(
      { role: "user", content: `Day ${day}: what should we see after lunch?` },
      {
        role: "assistant",
        content: `For day ${day}, walk to the **${["Alfama", "Belém", "Baixa", "Graça"][day % 4]}** quarter, then:\n\n1. A museum before it closes at 18:00\n2. Dinner near the river\n   - book ahead on weekends`,
      },
    );
  }
  messages.push(
    { role: "user", content: "Summarize the budget, and check the maths." },
    {
      role: "assistant",
      content: [
        "| Item | Nights | Cost |",
        "| :--- | ---: | ---: |",
        "| Hotel | 5 | €600 |",
        "| Trains | — | €85 |",
        "",
        "- [x] Hotel booked",
        "- [ ] Museum passes",
        "",
        "The daily spend is \\(\\frac{685}{5} = 137\\) euros.",
      ].join("\n"),
    },
  );
  return JSON.stringify(messages);
}

/** A full load of `hash`, done once `ready` is there and nothing says "Loading…". */
async function open(page, url, hash, ready) {
  await page.goto("about:blank");
  await page.goto(`${url}/${hash}`);
  await page.waitForSelector("main:not([aria-busy]) > *");
  await page.waitForSelector(ready);
  await page.waitForFunction(
    () => !document.querySelector("main")?.textContent?.includes("Loading…"),
  );
}

/** Like open(), and waits for the live-updates badge to connect, as a visitor would see it. */
async function openSession(page, url, hash, ready) {
  await open(page, url, hash, ready);
  await page.waitForSelector(".live.on");
}

/** Scrolls the page so `selector` starts `margin` pixels below the top of the window. */
async function scrollToTop(page, selector, margin = 16) {
  await page.$eval(
    selector,
    (element, margin) =>
      window.scrollTo(
        0,
        element.getBoundingClientRect().top + scrollY - margin,
      ),
    margin,
  );
}

/** Saves docs/studio/<name>.png of the window (not the full page), settled and without a caret. */
async function save(page, name) {
  await page.evaluate(() => document.fonts.ready);
  await page.evaluate(() => document.activeElement?.blur());
  await page.screenshot({
    path: join(OUT, `${name}.png`),
    animations: "disabled",
    caret: "hide",
  });
  console.log(`docs/studio/${name}.png`);
}

/** Starts `arbor serve` on `db` at a free port; resolves with its URL once it listens. */
function startServer(db, flags) {
  const child = spawn(
    process.execPath,
    [CLI, "serve", "--db", db, "--port", "0", ...flags],
    { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
  );
  let errors = "";
  child.stderr.on("data", (chunk) => (errors += chunk));
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null)
      child.kill("SIGINT");
    await exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`arbor serve did not start:\n${errors}`));
    }, SERVER_START_MS);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`arbor serve exited with ${code}:\n${errors}`));
    });
    createInterface({ input: child.stdout }).on("line", (line) => {
      const match = /^Arbor is listening on (\S+)$/.exec(line);
      if (!match) return;
      clearTimeout(timer);
      resolve({ url: match[1], stop });
    });
  });
}
