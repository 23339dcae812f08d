// Long, real histories in real Chromium against the real HTTP API over SQLite: a conversation of
// 2,000 messages shows its newest window before the tree is read and keeps its header and tabs in
// reach; Markdown as models write it; agent runs; the tree view's labels, detail and cursor; and
// search hits that say which branch they are on.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionManager } from "../../src/session/index.js";
import { ensureChromium, launchBrowser } from "./support/browser.js";
import {
  buildStudioInto,
  mainText,
  temporaryFolder,
} from "./support/harness.js";
import {
  startStudioServer,
  type StudioServer,
} from "./support/studio-server.js";

const available = ensureChromium();
const AXE_PATH = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
/** How far the page is wider than the window (0 or less: no horizontal scrolling). */
const OVERFLOW = "document.documentElement.scrollWidth - window.innerWidth";

const MODEL_MARKDOWN = [
  "Here is the plan:",
  "| Item | Cost |",
  "|:-----|-----:|",
  "| Hotel | 300 |",
  "| Food | 120 |",
  "",
  "- [x] book flights",
  "- [ ] pack",
  "  - shoes",
  "  - hat",
  "- call home",
  "",
  String.raw`The area is \(x^2\) and the ratio $$\frac{a}{b}$$ holds.`,
  "",
  "Raw <b>bold</b> stays text.",
].join("\n");

const LONG = 2000;
const text = (value: string) => ({ type: "text", text: value });

/** A chain of `LONG` messages of ~250 bytes (several history windows), a branch point near the end. */
async function seedLong(manager: SessionManager): Promise<string> {
  const { id } = await manager.create("Long run", {});
  const session = manager.getSession(id);
  let parent: string | null = null;
  for (let start = 0; start < LONG; start += 500) {
    const batch = Array.from({ length: 500 }, (_, offset) => {
      const index = start + offset;
      return {
        id: `m${index}`,
        role: index % 2 === 0 ? "user" : "assistant",
        parts: [
          text(`Message ${index}: ` + "a long line of words ".repeat(12)),
        ],
      };
    });
    await session.appendAll(batch, parent);
    parent = `m${start + 499}`;
  }
  await session.appendMessage(
    { id: "m1990-alt", role: "user", parts: [text("Another take.")] },
    "m1989",
  );
  await session.switchBranch(`m${LONG - 1}`);
  return id;
}

/** An agent run: three Task calls in a row, each asking its own thing of the same kind of agent. */
async function seedAgentRun(manager: SessionManager): Promise<string> {
  const { id } = await manager.create("Agent run", {});
  const session = manager.getSession(id);
  await session.appendMessage({
    id: "ask",
    role: "user",
    parts: [text("Review the repository.")],
  });
  const asks = [
    ["Find callers", "Find every caller of parseDate in src/."],
    ["Check tests", "List the tests that cover the date helpers."],
    ["Read docs", "Summarise docs/dates.md in five lines."],
  ];
  for (const [index, [description, prompt]] of asks.entries())
    await session.appendMessage({
      id: `task${index}`,
      role: "assistant",
      parts: [
        {
          type: "tool-Task",
          toolCallId: `call-${index}`,
          state: "output-available",
          input: { subagent_type: "general-purpose", description, prompt },
          output: "Done.",
        },
      ],
    });
  await session.appendMessage({
    id: "done",
    role: "assistant",
    parts: [text(MODEL_MARKDOWN)],
  });
  return id;
}

/** Two answers about a budget: the active one and a regenerated one on another branch. */
async function seedBudget(manager: SessionManager): Promise<string> {
  const { id } = await manager.create("Budget", {});
  const session = manager.getSession(id);
  await session.appendMessage({
    id: "b1",
    role: "user",
    parts: [text("Plan the trip")],
  });
  await session.appendMessage({
    id: "b2",
    role: "assistant",
    parts: [text("A budget of 500 euros covers it.")],
  });
  await session.appendMessage(
    {
      id: "b2b",
      role: "assistant",
      parts: [text("The budget is 300 euros.")],
    },
    "b1",
  );
  await session.switchBranch("b2");
  return id;
}

describe.skipIf(!available)("long histories in Chromium", () => {
  let folder: Awaited<ReturnType<typeof temporaryFolder>>;
  let server: StudioServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let longId: string;
  let agentId: string;
  let budgetId: string;

  beforeAll(async () => {
    folder = await temporaryFolder();
    buildStudioInto(join(folder.path, "studio"));
    server = await startStudioServer(
      join(folder.path, "studio.db"),
      join(folder.path, "studio"),
    );
    longId = await seedLong(server.manager);
    agentId = await seedAgentRun(server.manager);
    budgetId = await seedBudget(server.manager);
    browser = await launchBrowser({ width: 1280, height: 800 });
    page = await browser.context.newPage();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await folder?.remove();
  });

  const open = async (hash: string) => {
    await page.goto("about:blank");
    await page.goto(`${server.url}/${hash}`);
    await page.waitForSelector("main:not([aria-busy]) > *");
  };

  /** axe-core's violations on the page as it is (every rule axe runs by default). */
  const axe = async (): Promise<Array<{ id: string }>> => {
    if (!(await page.evaluate("typeof window.axe !== 'undefined'")))
      await page.addScriptTag({ content: await readFile(AXE_PATH, "utf8") });
    return page.evaluate<Array<{ id: string }>>(
      "axe.run(document).then((r) => r.violations.map((v) => ({ id: v.id, nodes: v.nodes.map((n) => n.target) })))",
    );
  };

  /** True when the element is inside the viewport (not scrolled away, not behind the tabs). */
  const onScreen = (selector: string) =>
    page.evaluate(`(() => {
      const element = ${selector === "focus" ? "document.activeElement" : `document.querySelector(${JSON.stringify(selector)})`};
      if (!element || element === document.body) return false;
      const box = element.getBoundingClientRect();
      return box.bottom > 0 && box.top < innerHeight && box.height > 0;
    })()`);

  it("shows the newest messages before the tree is read, then what needs the tree", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let treeAnswered = false;
    await page.route(/\/tree$/, async (route) => {
      await held;
      // Unrouted meanwhile (the test failed and moved on): nothing left to answer.
      await route.continue().catch(() => undefined);
      treeAnswered = true;
    });
    try {
      await page.goto("about:blank");
      await page.goto(`${server.url}/#/s/${longId}/chat`);
      await page.waitForSelector(`.message[data-message-id="m${LONG - 1}"]`, {
        timeout: 15_000,
      });
      expect(treeAnswered).toBe(false);
      expect(await page.getAttribute("main", "aria-busy")).toBe("true");
      expect(await page.locator(".siblings").count()).toBe(0);
      expect(await onScreen(`[data-message-id="m${LONG - 1}"]`)).toBe(true);
      release();
      // With the tree in: the branch switcher, the branch point count, and the page no longer busy.
      await page.waitForSelector("main:not([aria-busy])");
      await page.waitForSelector('.message[data-message-id="m1990"] .siblings');
      expect(await mainText(page)).toContain("Branch points 1");
      expect(await onScreen(`[data-message-id="m${LONG - 1}"]`)).toBe(true);
    } finally {
      release();
      await page.unroute(/\/tree$/);
    }
  });

  it("asks for the tree only once the newest window is on the page", async () => {
    // In the page, the moment the newest message is added; then when the tree was asked for.
    await page.addInitScript(`{
      const observer = new MutationObserver(() => {
        if (!document.querySelector('.message[data-message-id="m${LONG - 1}"]')) return;
        observer.disconnect();
        globalThis.shownAt = performance.now();
      });
      observer.observe(document, { childList: true, subtree: true });
    }`);
    await page.goto("about:blank");
    await page.goto(`${server.url}/#/s/${longId}/chat`);
    await page.waitForSelector("main:not([aria-busy])", { timeout: 15_000 });
    const { shownAt, treeAskedAt } = await page.evaluate(() => ({
      shownAt: (globalThis as { shownAt?: number }).shownAt ?? null,
      treeAskedAt:
        performance
          .getEntriesByType("resource")
          .find((entry) => new URL(entry.name).pathname.endsWith("/tree"))
          ?.startTime ?? null,
    }));
    expect(shownAt).not.toBeNull();
    expect(treeAskedAt).not.toBeNull();
    expect(treeAskedAt!).toBeGreaterThan(shownAt!);
  });

  it("keeps the tabs in view at the end of a long conversation, and the header where keyboard focus takes the reader", async () => {
    await open(`#/s/${longId}/chat`);
    await page.waitForSelector(`.message[data-message-id="m${LONG - 1}"]`);
    expect(await onScreen(`[data-message-id="m${LONG - 1}"]`)).toBe(true);
    expect(await onScreen("nav.tabs")).toBe(true);
    // Tab from the start of the page to the Tree tab: each focused control stays on screen,
    // also after the older messages had time to load above it.
    await page.evaluate("document.activeElement?.blur()");
    for (let presses = 0; presses < 20; presses++) {
      await page.keyboard.press("Tab");
      await page.waitForTimeout(300);
      expect(await onScreen("focus"), `focus after ${presses + 1} Tab`).toBe(
        true,
      );
      if (await page.evaluate("document.activeElement.closest('nav.tabs')"))
        break;
    }
    expect(await page.evaluate("document.activeElement.textContent")).toBe(
      "Conversation",
    );
    await page.waitForTimeout(1_000);
    expect(await onScreen("focus")).toBe(true);
    expect(await onScreen(".session-page h1")).toBe(true);
    // At the top, older messages come on demand, below the header.
    const before = await page
      .locator(".chat > .message")
      .first()
      .getAttribute("data-message-id");
    await page.click("button.older");
    await page.waitForFunction(
      `document.querySelector(".chat > .message")?.getAttribute("data-message-id") !== ${JSON.stringify(before)}`,
    );
    expect(await onScreen(".session-page h1")).toBe(true);
  });

  it("renders Markdown as models write it: tables, task lists, nested lists, LaTeX as written, HTML as text", async () => {
    await open(`#/s/${agentId}/chat`);
    const text = page.locator('[data-message-id="done"] .markdown');
    await text.waitFor();
    expect(await text.locator("table th").allInnerTexts()).toEqual([
      "Item",
      "Cost",
    ]);
    expect(await text.locator("table td").allInnerTexts()).toEqual([
      "Hotel",
      "300",
      "Food",
      "120",
    ]);
    expect(
      await page.evaluate(
        `getComputedStyle(document.querySelector('[data-message-id="done"] td.align-right')).textAlign`,
      ),
    ).toBe("right");
    expect(
      await text.locator("ul.tasks > li > input[type=checkbox]").count(),
    ).toBe(2);
    expect(await text.locator("input[type=checkbox]:checked").count()).toBe(1);
    expect(
      await text.locator("ul.tasks > li > ul > li").allInnerTexts(),
    ).toEqual(["shoes", "hat"]);
    const shown = await text.innerText();
    expect(shown).toContain(String.raw`\(x^2\)`);
    expect(shown).toContain(String.raw`$$\frac{a}{b}$$`);
    expect(shown).toContain("Raw <b>bold</b> stays text.");
    expect(await text.locator("b").count()).toBe(0);
    expect(await axe()).toEqual([]);
    // 390 px and dark: the table scrolls in its own box, the page does not.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.emulateMedia({ colorScheme: "dark" });
    try {
      expect(await page.evaluate(OVERFLOW)).toBeLessThanOrEqual(0);
      expect(await axe()).toEqual([]);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.emulateMedia({ colorScheme: "light" });
    }
  });

  it("shows what each Task call asked, and names the speaker of a run of calls once", async () => {
    await open(`#/s/${agentId}/chat`);
    const run = page.locator(".message.tool-run");
    expect(await run.locator("summary").first().innerText()).toContain(
      "Task ×3",
    );
    await run.locator("summary").first().click();
    await run.locator(".tool-run-messages .part-tool").first().waitFor();
    const asked = await run.locator(".part-tool .tool-arg").allInnerTexts();
    expect(asked).toEqual([
      expect.stringContaining("Find callers — Find every caller of parseDate"),
      expect.stringContaining("Check tests — List the tests"),
      expect.stringContaining("Read docs — Summarise docs/dates.md"),
    ]);
    expect(
      await run.locator(".tool-run-messages .role").allTextContents(),
    ).toEqual(["assistant"]);
    expect(await axe()).toEqual([]);
  });

  it("tree view: a label opens its node, the detail line shows at 1280×800, the keyboard cursor is not the active leaf's mark", async () => {
    await open(`#/s/${longId}/tree`);
    await page.waitForSelector('.graph-canvas .node[data-id="m1990-alt"]');
    const detail = await page.evaluate<{
      top: number;
      bottom: number;
      height: number;
    }>(`(() => {
      const box = document.querySelector(".graph-detail").getBoundingClientRect();
      return { top: box.top, bottom: box.bottom, height: innerHeight };
    })()`);
    expect(detail.top).toBeGreaterThanOrEqual(0);
    expect(detail.bottom).toBeLessThanOrEqual(detail.height);
    expect(await page.locator(".graph-detail").innerText()).toContain(
      "branch point",
    );
    // The cursor starts on the active leaf; one step up it is on the parent, a dashed ring.
    await page.focus(".graph-scroll");
    await page.keyboard.press("ArrowUp");
    const marks = await page.evaluate(`(() => {
      const ring = document.querySelector(".graph-canvas .node.cursor .cursor-ring");
      const leaf = document.querySelector(".graph-canvas .node.active-leaf");
      return {
        cursorOn: document.querySelector(".graph-canvas .node.cursor")?.getAttribute("data-id"),
        ring: ring ? getComputedStyle(ring).strokeDasharray : null,
        ringFill: ring ? getComputedStyle(ring).fill : null,
        leafRings: leaf.querySelectorAll(".cursor-ring").length,
        leafDash: getComputedStyle(leaf.querySelector("circle")).strokeDasharray,
      };
    })()`);
    expect(marks).toEqual({
      cursorOn: `m${LONG - 2}`,
      ring: expect.stringMatching(/\d/),
      ringFill: "none",
      leafRings: 0,
      leafDash: "none",
    });
    expect(await axe()).toEqual([]);
    await page.click('.graph-canvas .label[data-for="m1990-alt"]', {
      timeout: 5_000,
    });
    await page.waitForSelector('.message.focused[data-message-id="m1990-alt"]');
  });

  it("search finds a prefix and says which branch each hit is on", async () => {
    await open(`#/s/${budgetId}/search?q=budg`);
    await page.waitForSelector(".hits .hit");
    const hits = await page.locator(".hits .hit").allInnerTexts();
    expect(hits).toHaveLength(2);
    const byText = (needle: string) =>
      hits.find((hit) => hit.includes(needle))!.replace(/\s+/g, " ");
    expect(byText("500 euros")).toContain("on the active branch");
    expect(byText("300 euros")).toContain(
      "on branch 2 of 2 after “Plan the trip”",
    );
    expect(await axe()).toEqual([]);
  });
});
