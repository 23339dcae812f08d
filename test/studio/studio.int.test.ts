// The studio in real Chromium against the real HTTP API over SQLite: each scenario acts on the
// page and asserts on what the page shows (and, for writes, on what the API then answers).
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureChromium, launchBrowser } from "./support/browser.js";
import {
  buildStudioInto,
  mainText,
  temporaryFolder,
} from "./support/harness.js";
import { SEEDED, seedSessions } from "./support/seed.js";
import {
  configuredManager,
  startStudioServer,
  type StudioServer,
} from "./support/studio-server.js";

const available = ensureChromium();
/** How far the page is wider than the window (0 or less: no horizontal scrolling). */
const OVERFLOW = "document.documentElement.scrollWidth - window.innerWidth";

describe.skipIf(!available)("studio in Chromium", () => {
  let folder: Awaited<ReturnType<typeof temporaryFolder>>;
  let server: StudioServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let context: BrowserContext;
  let page: Page;
  let tripId: string;
  const dbFile = () => join(folder.path, "studio.db");

  beforeAll(async () => {
    folder = await temporaryFolder();
    buildStudioInto(join(folder.path, "studio"));
    server = await startStudioServer(dbFile(), join(folder.path, "studio"));
    ({ tripId } = await seedSessions(server.manager));
    browser = await launchBrowser();
    context = browser.context;
    page = await context.newPage();
    page.on("dialog", (dialog) => void dialog.accept());
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await folder?.remove();
  });

  const api = async <T>(path: string): Promise<T> =>
    (await fetch(server.url + path)).json() as Promise<T>;
  // A full load each time: a same-document hash change could leave the previous view in place
  // while the next one loads.
  const open = async (hash: string) => {
    await page.goto("about:blank");
    await page.goto(`${server.url}/${hash}`);
    await page.waitForSelector("main:not([aria-busy]) > *");
  };

  it("lists sessions with message counts, tokens and times, and filters by owner", async () => {
    await open("#/");
    const row = page.locator(`tr:has-text("${SEEDED.tripName}")`);
    await row.waitFor();
    expect(await row.locator('td[data-label="Messages"]').innerText()).toBe(
      "7",
    );
    expect(await row.locator('td[data-label="Owner"]').innerText()).toBe(
      "alice",
    );
    expect(await page.locator("tbody tr").count()).toBe(2);
    await page.fill('input[name="owner"]', "acme");
    await page.click('button:has-text("Filter")');
    await page.waitForFunction(
      'document.querySelectorAll("tbody tr").length === 1',
    );
    expect(await mainText(page)).toContain(SEEDED.otherName);
    expect(await mainText(page)).not.toContain(SEEDED.tripName);
  });

  it("opens a session as chat: overlay with provenance, the active branch and a sibling switcher", async () => {
    await open("#/");
    await page.click(`a:has-text("${SEEDED.tripName}")`);
    // The overlay's summary and the switchers come with the tree, behind the newest window.
    await page.waitForSelector("main:not([aria-busy]) .chat .message");
    const text = await mainText(page);
    expect(text).toContain(SEEDED.overlaySummary);
    expect(text).toContain("fake-summarizer");
    expect(text).toContain("1,200 → 60 tokens");
    expect(text).toContain("The tile museum (Azulejo)");
    expect(text).toContain("grilled sardines");
    expect(text).not.toContain("Gulbenkian");
    const switcher = page.locator('[data-message-id="a2b"] .siblings');
    expect(await switcher.innerText()).toContain("2/2");
  });

  it("browses a sibling branch with the switcher without moving the stored active leaf; only the banner's button does", async () => {
    const activeLeaf = async () =>
      (await api<{ message: { id: string } }>(`/v1/sessions/${tripId}/leaf`))
        .message.id;
    expect(await activeLeaf()).toBe("a3");
    await open(`#/s/${tripId}/chat`);
    expect(await mainText(page)).not.toContain("This is not the active branch");
    await page.click(
      '[data-message-id="a2b"] button[aria-label="Previous branch"]',
    );
    await page.waitForSelector('.message.focused[data-message-id="a2"]');
    const text = await mainText(page);
    expect(text).toContain("This is not the active branch");
    expect(text).toContain("Gulbenkian");
    expect(text).not.toContain("grilled sardines");
    expect(
      await page.locator('[data-message-id="a2"] .sibling-count').innerText(),
    ).toBe("1/2");
    // The store is untouched: the API still answers the old leaf and its history.
    expect(await activeLeaf()).toBe("a3");
    const { messages } = await api<{ messages: Array<{ id: string }> }>(
      `/v1/sessions/${tripId}/history`,
    );
    expect(messages.map((message) => message.id)).toContain("a3");
    expect(messages.map((message) => message.id)).not.toContain("a2");

    // Back with → : the active branch again, no banner, still nothing written.
    await page.click('[data-message-id="a2"] button[aria-label="Next branch"]');
    await page.waitForSelector('.message.focused[data-message-id="a2b"]');
    expect(await mainText(page)).not.toContain("This is not the active branch");
    expect(await activeLeaf()).toBe("a3");

    // Only the banner's button moves the active leaf.
    await page.click(
      '[data-message-id="a2b"] button[aria-label="Previous branch"]',
    );
    await page.waitForSelector(
      '.banner button:has-text("Make this branch active")',
    );
    expect(await activeLeaf()).toBe("a3");
    await page.click('.banner button:has-text("Make this branch active")');
    await page.waitForFunction('!document.querySelector(".banner")');
    await page.waitForSelector('[data-message-id="a2"]');
    expect(await activeLeaf()).toBe("a2");
    // Put the seeded active branch back for the scenarios after this one.
    await page.click('[data-message-id="a2"] button[aria-label="Next branch"]');
    await page.click('.banner button:has-text("Make this branch active")');
    await page.waitForFunction('!document.querySelector(".banner")');
    expect(await activeLeaf()).toBe("a3");
  });

  it("draws the tree as a graph and opens a node's path on click", async () => {
    await open(`#/s/${tripId}/tree`);
    await page.waitForSelector(".graph-canvas .node");
    expect(await page.locator(".graph-canvas .node").count()).toBe(7);
    expect(await page.locator(".graph-canvas .node.on-path").count()).toBe(6);
    await page.click('.graph-canvas .node[data-id="a2"]');
    await page.waitForSelector('.message.focused[data-message-id="a2"]');
    const text = await mainText(page);
    expect(text).toContain("This is not the active branch");
    expect(text).toContain("Gulbenkian");
  });

  it("opens a graph node with the keyboard", async () => {
    await open(`#/s/${tripId}/tree`);
    await page.waitForSelector(".graph-canvas .node.cursor");
    await page.focus(".graph-scroll");
    // From the active leaf a3: up to u3, up to a2b, left to its sibling a2, Enter.
    for (const key of ["ArrowUp", "ArrowUp", "ArrowLeft", "Enter"])
      await page.keyboard.press(key);
    await page.waitForSelector('.message.focused[data-message-id="a2"]');
  });

  it("opens a search hit hidden under an overlay by expanding the overlay", async () => {
    await open(`#/s/${tripId}/search?q=trip`);
    const hit = page.locator(".hits a.hit").first();
    await hit.waitFor();
    expect(await hit.innerText()).toContain("Plan a trip to Lisbon in May.");
    await hit.click();
    await page.waitForSelector(
      '.originals .message.focused[data-message-id="u1"]',
    );
  });

  it("expands an overlay to its original messages and parts, then undoes it", async () => {
    await open(`#/s/${tripId}/chat`);
    await page.click('button:has-text("Show 2 original messages")');
    await page.waitForSelector('.originals [data-message-id="a1"]');
    const originals = (await page.locator(".originals").innerText()).replace(
      /\s+/g,
      " ",
    );
    expect(originals).toContain("Plan a trip to Lisbon in May.");
    // The tool call is one line (tool, first argument, status) that opens to its fields.
    expect(originals).toContain("get_weather Lisbon done");
    await page.click('.originals .part-tool[data-tool="get_weather"] summary');
    // The fields are drawn when the call opens (its toggle event), not with the click.
    await page.waitForSelector(
      '.originals .part-tool[data-tool="get_weather"][open] > :not(summary)',
    );
    const call = (
      await page
        .locator('.originals .part-tool[data-tool="get_weather"]')
        .innerText()
    ).replace(/\s+/g, " ");
    expect(call).toContain("city Lisbon month May");
    expect(call).toContain('"averageHighC": 22');
    expect(originals).toContain("dates.txt");
    expect(originals).toContain("Reasoning");
    await page.click('button:has-text("Undo overlay")');
    await page.waitForFunction('!document.querySelector(".message.overlay")');
    await page.waitForSelector('.chat > [data-message-id="u1"]');
    const { compactions } = await api<{ compactions: unknown[] }>(
      `/v1/sessions/${tripId}/compactions`,
    );
    expect(compactions).toEqual([]);
  });

  it("shows blocks with usage, history and a diff, and reverts a block", async () => {
    await open(`#/s/${tripId}/blocks`);
    const block = page.locator('.block[data-label="memory"]');
    await block.waitFor();
    expect(await block.locator(".block-content").innerText()).toBe(
      SEEDED.memoryV2,
    );
    expect(await block.locator(".usage-text").innerText()).toMatch(
      /^\d+ \/ 200 tokens$/,
    );
    await block.locator('button:has-text("History")').click();
    await block.locator(".versions li").first().waitFor();
    expect(await block.locator(".diff .diff-line.add").innerText()).toContain(
      SEEDED.memoryV2,
    );
    expect(
      await block.locator(".diff .diff-line.remove").innerText(),
    ).toContain(SEEDED.memoryV1);
    await block.locator('button:has-text("Revert to v1")').click();
    await page.waitForFunction(
      `document.querySelector('.block[data-label="memory"] .block-content')?.textContent === ${JSON.stringify(SEEDED.memoryV1)}`,
    );
    const { versions } = await api<{ versions: Array<{ source: string }> }>(
      `/v1/sessions/${tripId}/blocks/memory/history`,
    );
    expect(versions.map((version) => version.source)).toEqual([
      "api",
      "api",
      "revert",
    ]);
  });

  it("shows a block write after the refresh button", async () => {
    await open(`#/s/${tripId}/blocks`);
    await page.locator('.block[data-label="memory"]').waitFor();
    await server.manager
      .getSession(tripId)
      .replaceContextBlock("memory", "Written while the page was open.");
    await page.click('button[aria-label="Refresh this session"]');
    await page.waitForSelector(
      '.block-content:has-text("Written while the page was open.")',
    );
    await server.manager.getSession(tripId).revertContextBlock("memory", 1);
  });

  it("shows the frozen prompt and what the blocks changed since", async () => {
    await open(`#/s/${tripId}/prompt`);
    await page.waitForSelector(".prompt-view");
    const added = await page.locator(".diff .diff-line.add").allInnerTexts();
    expect(added.join("\n")).toContain(SEEDED.memoryV1);
  });

  it("searches a session, highlights matches and opens a hit in its branch", async () => {
    await open(`#/s/${tripId}/search`);
    await page.fill('input[name="q"]', "Gulbenkian");
    await page.press('input[name="q"]', "Enter");
    const hit = page.locator(".hits a.hit").first();
    await hit.waitFor();
    expect(await hit.locator("mark").first().innerText()).toBe("Gulbenkian");
    await hit.click();
    await page.waitForSelector('.message.focused[data-message-id="a2"]');
    expect(await mainText(page)).toContain("This is not the active branch");
  });

  it("searches across sessions from the list and opens the hit's session", async () => {
    await open("#/");
    await page.fill('input[name="q"]', "deployment");
    await page.press('input[name="q"]', "Enter");
    const hit = page.locator(".hits a.hit").first();
    await hit.waitFor();
    expect(await hit.innerText()).toContain(SEEDED.otherName);
    expect((await hit.locator("mark").first().innerText()).toLowerCase()).toBe(
      "deployment",
    );
    await hit.click();
    await page.waitForSelector('.message.focused[data-message-id="d1"]');
    expect(await page.locator("h1").innerText()).toBe(SEEDED.otherName);
  });

  it("imports a dropped file with progress and opens the new session", async () => {
    await open("#/");
    const file = JSON.stringify([
      { role: "user", content: "Imported question about tapas" },
      { role: "assistant", content: "Imported answer about tapas" },
    ]);
    const transfer = await page.evaluateHandle(`(() => {
      const data = new DataTransfer();
      data.items.add(new File([${JSON.stringify(file)}], "chat.json", { type: "application/json" }));
      return data;
    })()`);
    await page.dispatchEvent("main", "dragenter", { dataTransfer: transfer });
    await page.dispatchEvent("main", "drop", { dataTransfer: transfer });
    await page.waitForSelector(".import-panel progress, .import-panel a");
    await page.waitForSelector(
      '.chat .message:has-text("Imported answer about tapas")',
    );
    expect(await page.locator(".import-panel").innerText()).toContain(
      "Imported 1 session from chat.json",
    );
    const { sessions } = await api<{ sessions: unknown[] }>("/v1/sessions");
    expect(sessions).toHaveLength(3);
    await page.click('.import-panel button[aria-label="Close"]');
    expect(await page.locator(".import-panel").isHidden()).toBe(true);
  });

  it("shows a write from another process without a reload", async () => {
    await open(`#/s/${tripId}/chat`);
    await page.waitForSelector(".live.on");
    const writer = configuredManager(dbFile());
    await writer.getSession(tripId).appendMessage({
      id: "elsewhere",
      role: "user",
      parts: [{ type: "text", text: "Written by another process" }],
    });
    await page.waitForSelector('[data-message-id="elsewhere"]', {
      timeout: 20_000,
    });
    expect(await mainText(page)).toContain("Written by another process");
  });

  it("is usable at 390 px wide", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await open(`#/s/${tripId}/chat`);
      expect(await page.evaluate(OVERFLOW)).toBeLessThanOrEqual(0);
      await open("#/");
      expect(await page.evaluate(OVERFLOW)).toBeLessThanOrEqual(0);
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });
});
