// The studio as a memory workbench in real Chromium against the real HTTP API over SQLite:
// editing a writable block in place (a live token count against its maxTokens, a save that is a
// new version in its history, a revert only after a confirmation), and the Context tab (what a
// turn would send at a leaf: the prompt with each block, the history after overlays and
// truncation with the settings editable, Arbor's tools with their schemas, the total against a
// budget), which writes nothing; creating a block (New block), a write only after a confirmation,
// stored with the session. Axe, keyboard, dark mode and 390 px on each.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import Database from "better-sqlite3";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { estimateStringTokens } from "../../src/utils/index.js";
import { ensureChromium, launchBrowser } from "./support/browser.js";
import { buildStudioInto, temporaryFolder } from "./support/harness.js";
import { SEEDED, seedSessions } from "./support/seed.js";
import {
  configuredManager,
  startStudioServer,
  type StudioServer,
} from "./support/studio-server.js";

const available = ensureChromium();
const AXE_PATH = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
/** How far the page is wider than the window (0 or less: no horizontal scrolling). */
const OVERFLOW = "document.documentElement.scrollWidth - window.innerWidth";

interface AxeViolation {
  id: string;
  nodes: Array<{ target: string[] }>;
}

interface Version {
  version: number;
  content: string;
  source: string;
}

describe.skipIf(!available)("the studio as a memory workbench", () => {
  let folder: Awaited<ReturnType<typeof temporaryFolder>>;
  let server: StudioServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let tripId: string;
  /** What the next confirm() answers; every dialog is recorded. */
  let confirmAnswer = true;
  const dialogs: string[] = [];

  beforeAll(async () => {
    folder = await temporaryFolder();
    buildStudioInto(join(folder.path, "studio"));
    server = await startStudioServer(
      join(folder.path, "studio.db"),
      join(folder.path, "studio"),
    );
    ({ tripId } = await seedSessions(server.manager));
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void (confirmAnswer ? dialog.accept() : dialog.dismiss());
    });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await folder?.remove();
  });

  const api = async <T>(path: string): Promise<T> =>
    (await (await fetch(server.url + path)).json()) as T;
  const versions = async () =>
    (
      await api<{ versions: Version[] }>(
        `/v1/sessions/${tripId}/blocks/memory/history`,
      )
    ).versions;
  const content = async () =>
    (await api<{ content: string }>(`/v1/sessions/${tripId}/blocks/memory`))
      .content;
  /** Every row of every table of the server's SQLite file, read over a read-only connection. */
  const dump = (): string => {
    const db = new Database(join(folder.path, "studio.db"), {
      readonly: true,
    });
    try {
      const tables = db
        .prepare(
          "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name",
        )
        .all() as { name: string }[];
      return JSON.stringify(
        tables.map(({ name }) => [
          name,
          db.prepare(`SELECT * FROM "${name}"`).all(),
        ]),
      );
    } finally {
      db.close();
    }
  };
  const open = async (hash: string) => {
    await page.goto("about:blank");
    await page.goto(`${server.url}/${hash}`);
    await page.waitForSelector("main:not([aria-busy]) > *");
  };
  const axe = async (): Promise<AxeViolation[]> => {
    if (!(await page.evaluate("typeof window.axe !== 'undefined'")))
      await page.addScriptTag({ content: await readFile(AXE_PATH, "utf8") });
    return page.evaluate<AxeViolation[]>(
      "axe.run(document).then((r) => r.violations.map((v) => ({ id: v.id, nodes: v.nodes.map((n) => ({ target: n.target })) })))",
    );
  };
  const memoryCard = () => page.locator('.block[data-label="memory"]');

  it("edits a block in place with a live token count against maxTokens, and saves it as a new version", async () => {
    const before = await versions();
    await open(`#/s/${tripId}/blocks`);
    await memoryCard().locator("button.edit-block").click();
    const area = memoryCard().locator("textarea.block-editor");
    // The editor opens with the content and takes the focus.
    expect(await area.inputValue()).toBe(SEEDED.memoryV2);
    expect(await page.evaluate("document.activeElement?.tagName")).toBe(
      "TEXTAREA",
    );
    const count = memoryCard().locator(".draft-count");
    const save = memoryCard().locator(
      'button:has-text("Save as a new version")',
    );
    expect(await count.innerText()).toBe(
      `${estimateStringTokens(SEEDED.memoryV2)} / 200 tokens`,
    );
    // Unchanged: no version to save.
    expect(await save.isDisabled()).toBe(true);
    // Over the limit (200 tokens): the count says so and Save is off.
    const tooLong = "museum ".repeat(160).trim();
    await area.fill(tooLong);
    const over = estimateStringTokens(tooLong);
    expect(over).toBeGreaterThan(200);
    expect(await count.innerText()).toBe(
      `${over} / 200 tokens — ${over - 200} over the limit`,
    );
    expect(await save.isDisabled()).toBe(true);
    // Escape leaves without writing.
    await page.keyboard.press("Escape");
    expect(await area.count()).toBe(0);
    expect(await memoryCard().locator("pre.block-content").innerText()).toBe(
      SEEDED.memoryV2,
    );
    expect(await versions()).toEqual(before);

    const next = "Prefers museums, seafood and trams.";
    await memoryCard().locator("button.edit-block").click();
    await area.fill(next);
    expect(await count.innerText()).toBe(
      `${estimateStringTokens(next)} / 200 tokens`,
    );
    await save.click();
    await page.waitForSelector(
      `.block[data-label="memory"] pre.block-content:has-text("${next}")`,
    );
    expect(await content()).toBe(next);
    const after = await versions();
    expect(after).toHaveLength(before.length + 1);
    expect(after.at(-1)).toMatchObject({ content: next, source: "api" });
  });

  it("reverts only after the confirmation, as a new version", async () => {
    await open(`#/s/${tripId}/blocks`);
    await memoryCard().locator('button:has-text("History")').click();
    const revert = memoryCard().locator('button:has-text("Revert to v1")');
    await revert.waitFor();
    const before = await versions();
    dialogs.length = 0;
    confirmAnswer = false;
    await revert.click();
    await expect.poll(() => dialogs.length).toBe(1);
    expect(dialogs[0]).toContain("Revert memory to v1?");
    expect(await versions()).toEqual(before);

    confirmAnswer = true;
    await revert.click();
    await page.waitForSelector(
      `.block[data-label="memory"] pre.block-content:has-text("${SEEDED.memoryV1}")`,
    );
    expect(await content()).toBe(SEEDED.memoryV1);
    const after = await versions();
    expect(after).toHaveLength(before.length + 1);
    expect(after.at(-1)).toMatchObject({
      content: SEEDED.memoryV1,
      source: "revert",
    });
  });

  it("shows the context window at a leaf: each block, the history, the tools, the total against the budget, writing nothing", async () => {
    const before = dump();
    await open(`#/s/${tripId}/context`);
    await page.waitForSelector(".context-view");
    const window = await api<{
      totals: { all: number; system: number };
      messages: Array<{ message: { id: string } }>;
    }>(`/v1/sessions/${tripId}/context`);
    expect(await page.locator("#context-total").innerText()).toBe(
      `${window.totals.all.toLocaleString("en-US")} of 128,000 tokens (${((window.totals.all / 128_000) * 100).toFixed(1)}%)`,
    );
    // The prompt with each block: the memory block, as written.
    const memory = page.locator('.context-blocks li[data-label="memory"]');
    await memory.locator("summary").click();
    expect(await memory.locator("pre").innerText()).toContain("MEMORY");
    expect(await memory.locator("pre").innerText()).toContain(SEEDED.memoryV1);
    // The history after the overlay: the summary stands for u1 … a1.
    const ids = await page.evaluate<string[]>(
      `[...document.querySelectorAll(".context-messages li[data-message-id]")].map((li) => li.dataset.messageId)`,
    );
    expect(ids).toEqual(window.messages.map((part) => part.message.id));
    expect(ids).not.toContain("u1");
    // Arbor's tools with their input schemas.
    const tool = page.locator('.context-tools li[data-tool="set_context"]');
    await tool.locator("summary").click();
    expect(JSON.parse(await tool.locator("pre").innerText())).toMatchObject({
      type: "object",
    });

    // Truncation settings and the budget are edited in the view (and kept in the address).
    await page.fill('input[name="keepRecent"]', "0");
    await page.fill('input[name="maxTextChars"]', "10");
    await page.fill('input[name="budget"]', "50");
    await page.click('.context-settings button[type="submit"]');
    await page.waitForFunction('location.hash.includes("keepRecent=0")');
    await page.waitForSelector(".context-messages .tag:has-text('truncated')");
    expect(await page.locator("#context-total").innerText()).toContain(
      "over the budget",
    );
    expect(page.url()).toContain("budget=50");
    // Off: the messages go whole.
    await page.uncheck('input[name="truncate"]');
    await page.click('.context-settings button[type="submit"]');
    await page.waitForFunction('location.hash.includes("truncate=off")');
    await page.waitForSelector(".context-messages li[data-message-id]");
    expect(await page.locator(".context-messages .tag").count()).toBe(0);
    // Another leaf: the path to a2 (the museum answer).
    await page.selectOption('select[name="leaf"]', "a2");
    await page.click('.context-settings button[type="submit"]');
    await page.waitForSelector('.context-messages li[data-message-id="a2"]');
    expect(
      await page.locator('.context-messages li[data-message-id="a3"]').count(),
    ).toBe(0);
    // Nothing of this wrote: every table is as it was (no prompt frozen, no row touched).
    expect(dump()).toBe(before);
  });

  it("works by keyboard, at 390 px and in dark mode, axe clean", async () => {
    await open(`#/s/${tripId}/context`);
    await page.waitForSelector(".context-view");
    expect(await axe()).toEqual([]);
    await open(`#/s/${tripId}/blocks`);
    await memoryCard().locator("button.edit-block").focus();
    await page.keyboard.press("Enter");
    await memoryCard().locator("textarea.block-editor").waitFor();
    expect(await axe()).toEqual([]);
    await page.keyboard.press("Escape");
    // The focus comes back to the Edit button.
    expect(await page.evaluate("document.activeElement?.className")).toContain(
      "edit-block",
    );
    await page.setViewportSize({ width: 390, height: 844 });
    await page.emulateMedia({ colorScheme: "dark" });
    try {
      await memoryCard().locator("button.edit-block").click();
      await memoryCard().locator("textarea.block-editor").waitFor();
      expect(await page.evaluate(OVERFLOW)).toBeLessThanOrEqual(0);
      expect(await axe()).toEqual([]);
      await open(`#/s/${tripId}/context?keepRecent=0`);
      await page.waitForSelector(".context-view");
      for (const summary of await page.locator(".context-view summary").all())
        await summary.click();
      expect(await page.evaluate(OVERFLOW)).toBeLessThanOrEqual(0);
      expect(await axe()).toEqual([]);
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.emulateMedia({ colorScheme: "light" });
    }
  });

  it("creates a block only after the confirmation: New block's form, a live count, stored with the session and in the prompt of a manager opened afresh; axe clean, dark, 390 px", async () => {
    const labels = async () =>
      (
        await api<{ blocks: Array<{ label: string }> }>(
          `/v1/sessions/${tripId}/blocks`,
        )
      ).blocks.map((block) => block.label);
    expect(await labels()).toEqual(["memory"]);
    await open(`#/s/${tripId}/blocks`);
    await page.click("button.new-block");
    const form = page.locator("form.block-create-form");
    await form.waitFor();
    expect(
      await page.evaluate("document.activeElement?.getAttribute('name')"),
    ).toBe("label");
    const create = form.locator('button:has-text("Create block…")');
    const problem = form.locator(".form-problem");
    // A label the session has, or one the API refuses, is caught before anything is sent.
    await form.locator('input[name="label"]').fill("memory");
    expect(await problem.innerText()).toBe(
      'This session already has a block "memory".',
    );
    expect(await create.isDisabled()).toBe(true);
    await form.locator('input[name="label"]').fill("two words");
    expect(await create.isDisabled()).toBe(true);
    await form.locator('input[name="label"]').fill("plans");
    await form
      .locator('input[name="description"]')
      .fill("Where the user is going");
    await form.locator('input[name="maxTokens"]').fill("20");
    const long = "Lisbon ".repeat(40).trim();
    await form.locator('textarea[name="content"]').fill(long);
    const over = estimateStringTokens(long);
    expect(await form.locator(".draft-count").innerText()).toBe(
      `${over} / 20 tokens — ${over - 20} over the limit`,
    );
    expect(await create.isDisabled()).toBe(true);
    const text = "Trip to Lisbon in May.";
    await form.locator('textarea[name="content"]').fill(text);
    expect(await form.locator(".draft-count").innerText()).toBe(
      `${estimateStringTokens(text)} / 20 tokens`,
    );
    expect(await axe()).toEqual([]);

    // Declined: nothing is written.
    const before = dump();
    dialogs.length = 0;
    confirmAnswer = false;
    await create.click();
    await expect.poll(() => dialogs.length).toBe(1);
    expect(dialogs[0]).toContain('Create the block "plans" in this session?');
    expect(dump()).toBe(before);
    expect(await labels()).toEqual(["memory"]);

    // Confirmed: the block, its first version, and its card in the view.
    confirmAnswer = true;
    await create.click();
    await page.waitForSelector(
      `.block[data-label="plans"] pre.block-content:has-text("${text}")`,
    );
    expect(await labels()).toEqual(["memory", "plans"]);
    const history = await api<{ versions: Version[] }>(
      `/v1/sessions/${tripId}/blocks/plans/history`,
    );
    expect(history.versions.map((v) => [v.content, v.source])).toEqual([
      [text, "api"],
    ]);
    expect(
      await page
        .locator('.block[data-label="plans"] .usage-text')
        .first()
        .innerText(),
    ).toBe(`${estimateStringTokens(text)} / 20 tokens`);

    // Another process (a restarted server) opening the session has the block: listed, and in
    // the prompt the blocks render (the session's frozen prompt takes it at the next freeze).
    const afresh = configuredManager(join(folder.path, "studio.db")).getSession(
      tripId,
    );
    expect((await afresh.loadContext()).map((block) => block.label)).toEqual([
      "memory",
      "plans",
    ]);
    const { current } = await afresh.readSystemPrompt();
    expect(current).toContain("Where the user is going");
    expect(current).toContain(text);

    await page.setViewportSize({ width: 390, height: 844 });
    await page.emulateMedia({ colorScheme: "dark" });
    try {
      await open(`#/s/${tripId}/blocks`);
      await page.click("button.new-block");
      await page.locator("form.block-create-form").waitFor();
      expect(await page.evaluate(OVERFLOW)).toBeLessThanOrEqual(0);
      expect(await axe()).toEqual([]);
      // Escape closes the form, writing nothing, and gives the focus back to New block.
      await page.keyboard.press("Escape");
      expect(await page.locator("form.block-create-form").count()).toBe(0);
      expect(
        await page.evaluate("document.activeElement?.className"),
      ).toContain("new-block");
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.emulateMedia({ colorScheme: "light" });
    }
  });

  it("Freeze the current prompt writes the prompt the blocks render now, the created block in it", async () => {
    const prompt = () =>
      api<{ prompt: string | null; current: string }>(
        `/v1/sessions/${tripId}/prompt`,
      );
    const before = await prompt();
    // The block created above is in what the blocks render, not yet in the frozen prompt.
    expect(before.current).toContain("Trip to Lisbon in May.");
    expect(before.prompt ?? "").not.toContain("Trip to Lisbon in May.");
    await open(`#/s/${tripId}/prompt`);
    await page.waitForSelector(".prompt-view");
    expect(
      (await page.locator(".diff .diff-line.add").allInnerTexts()).join("\n"),
    ).toContain("Trip to Lisbon in May.");
    await page.click('button:has-text("Freeze the current prompt")');
    await page.waitForSelector(
      '.prompt-view pre.prompt-text:has-text("Trip to Lisbon in May.")',
    );
    const after = await prompt();
    expect(after.prompt).toBe(before.current);
    expect(await page.locator(".diff .diff-line.add").count()).toBe(0);
  });

  it("deletes a created block only after the confirmation, and a second page sees a block created without content appear and go live", async () => {
    const labels = async () =>
      (
        await api<{ blocks: Array<{ label: string }> }>(
          `/v1/sessions/${tripId}/blocks`,
        )
      ).blocks.map((block) => block.label);
    const second = await browser.context.newPage();
    try {
      await open(`#/s/${tripId}/blocks`);
      await second.goto(`${server.url}/#/s/${tripId}/blocks`);
      await second.waitForSelector('.block[data-label="plans"]');
      await second.waitForSelector(".live.on");
      // A declared block has no Delete: it is the application's.
      expect(
        await memoryCard().locator('button:has-text("Delete…")').count(),
      ).toBe(0);

      // Created by another client without content: a change on the feed, shown without a refresh.
      const created = await fetch(
        `${server.url}/v1/sessions/${tripId}/blocks`,
        {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ label: "ideas", description: "Loose ideas" }),
        },
      );
      expect(created.status).toBe(201);
      await second.waitForSelector('.block[data-label="ideas"]');
      const ideas = page.locator('.block[data-label="ideas"]');
      await ideas.waitFor();

      // Declined: nothing is written.
      const before = dump();
      dialogs.length = 0;
      confirmAnswer = false;
      await ideas.locator('button:has-text("Delete…")').click();
      await expect.poll(() => dialogs.length).toBe(1);
      expect(dialogs[0]).toContain("Delete the block ideas for good?");
      expect(dump()).toBe(before);
      expect(await labels()).toEqual(["memory", "plans", "ideas"]);

      // Confirmed: gone from the store, from this page and, live, from the other.
      confirmAnswer = true;
      await ideas.locator('button:has-text("Delete…")').click();
      await page.waitForSelector('.block[data-label="ideas"]', {
        state: "detached",
      });
      await second.waitForSelector('.block[data-label="ideas"]', {
        state: "detached",
      });
      expect(await labels()).toEqual(["memory", "plans"]);
      expect(dump()).not.toContain("block:ideas");
      const history = await fetch(
        `${server.url}/v1/sessions/${tripId}/blocks/ideas/history`,
      );
      expect(history.status).toBe(404);
    } finally {
      await second.close();
    }
  });
});
