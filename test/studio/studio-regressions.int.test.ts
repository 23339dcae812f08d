// Regressions of the studio in real Chromium against the real HTTP API over SQLite: stale blocks
// after another process wrote them, tree labels crowded out by other columns, and what the studio
// says (and shows) while the server cannot be reached.
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureChromium, launchBrowser } from "./support/browser.js";
import {
  buildStudioInto,
  mainText,
  temporaryFolder,
} from "./support/harness.js";
import { seedSessions } from "./support/seed.js";
import {
  configuredManager,
  startStudioServer,
  type StudioServer,
} from "./support/studio-server.js";

const available = ensureChromium();

describe.skipIf(!available)("studio regressions in Chromium", () => {
  let folder: Awaited<ReturnType<typeof temporaryFolder>>;
  let server: StudioServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let tripId: string;
  const dbFile = () => join(folder.path, "studio.db");
  const studioDir = () => join(folder.path, "studio");

  beforeAll(async () => {
    folder = await temporaryFolder();
    buildStudioInto(studioDir());
    server = await startStudioServer(dbFile(), studioDir());
    ({ tripId } = await seedSessions(server.manager));
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.on("dialog", (dialog) => void dialog.accept());
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

  /** The label drawn beside each node of the tree on screen, by node id. */
  const treeLabels = async (): Promise<Record<string, string>> =>
    page.evaluate(`(() => {
      const labels = {};
      for (const node of document.querySelectorAll(".graph-canvas .node"))
        labels[node.getAttribute("data-id")] = "";
      for (const text of document.querySelectorAll(".graph-canvas .label"))
        labels[
          text.getAttribute("data-for") ??
            text.closest("[data-id]").getAttribute("data-id")
        ] = text.textContent ?? "";
      return labels;
    })()`);

  it("serves a block another process wrote, not the copy it read first", async () => {
    await open(`#/s/${tripId}/blocks`);
    await page.locator('.block[data-label="memory"]').waitFor();
    const writer = configuredManager(dbFile());
    await writer
      .getSession(tripId)
      .replaceContextBlock("memory", "Written by another process.");
    await page.click('button[aria-label="Refresh this session"]');
    await page.waitForSelector(
      '.block-content:has-text("Written by another process.")',
    );
    const answer = (await (
      await fetch(`${server.url}/v1/sessions/${tripId}/blocks`)
    ).json()) as { blocks: Array<{ label: string; content: string }> };
    expect(answer.blocks.find((b) => b.label === "memory")?.content).toBe(
      "Written by another process.",
    );
  });

  it("shows a block another process wrote without a refresh, from the change feed", async () => {
    await open(`#/s/${tripId}/blocks`);
    await page.locator('.block[data-label="memory"]').waitFor();
    // The Blocks tab no longer polls: while nothing is written it reads nothing.
    const blockReads: string[] = [];
    const onRequest = (request: { url(): string }) => {
      if (/\/v1\/sessions\/[^/]+\/blocks$/.test(request.url()))
        blockReads.push(request.url());
    };
    page.on("request", onRequest);
    try {
      await page.waitForTimeout(3_500);
      expect(blockReads).toEqual([]);
      await configuredManager(dbFile())
        .getSession(tripId)
        .replaceContextBlock("memory", "Written elsewhere, shown live.");
      await page.waitForSelector(
        '.block-content:has-text("Written elsewhere, shown live.")',
        { timeout: 20_000 },
      );
      expect(blockReads.length).toBeGreaterThanOrEqual(1);
    } finally {
      page.off("request", onRequest);
    }
  });

  it("opening the Prompt tab freezes no prompt", async () => {
    const { id } = await server.manager.create("Never prompted");
    await server.manager
      .getSession(id)
      .replaceContextBlock("memory", "Written before any turn.");
    await open(`#/s/${id}/prompt`);
    await page.waitForSelector(".prompt-view");
    expect(await mainText(page)).toContain(
      "No prompt has been frozen for this session yet.",
    );
    expect(
      (await page.locator(".diff .diff-line.add").allInnerTexts()).join("\n"),
    ).toContain("Written before any turn.");
    // Another process reading the file sees no frozen prompt: the page wrote none.
    const reader = configuredManager(dbFile());
    expect(await reader.getSession(id).readSystemPrompt()).toMatchObject({
      frozen: null,
    });
  });

  it("labels every node of the sample tree, also beside another column", async () => {
    await open(`#/s/${tripId}/tree`);
    await page.waitForSelector(".graph-canvas .node");
    const labels = await treeLabels();
    expect(Object.keys(labels).length).toBeGreaterThanOrEqual(7);
    for (const [id, text] of Object.entries(labels))
      expect(text.length, `label of ${id}`).toBeGreaterThan(10);
  });

  it("keeps the active path's labels readable with several roots and after a live append", async () => {
    const info = await server.manager.create("Several roots", {});
    const session = server.manager.getSession(info.id);
    for (let root = 0; root < 4; root++) {
      let parent: string | null = null;
      for (let step = 0; step < 4; step++) {
        const id = `r${root}-${step}`;
        await session.appendMessage(
          {
            id,
            role: step % 2 === 0 ? "user" : "assistant",
            parts: [
              { type: "text", text: `Root ${root} says message ${step}` },
            ],
          },
          parent,
        );
        parent = id;
      }
    }
    // The active path between other roots' columns, not the last one (which has room to spare).
    await session.switchBranch("r1-3");
    await open(`#/s/${info.id}/tree`);
    await page.waitForSelector(".live.on");
    const activePath = ["r1-0", "r1-1", "r1-2", "r1-3"];
    let labels = await treeLabels();
    for (const id of activePath)
      expect(labels[id], `label of ${id}`).toMatch(/^Root 1 says message \d$/);
    // Another process branches the active path: a new column next to it.
    await configuredManager(dbFile())
      .getSession(info.id)
      .appendMessage(
        {
          id: "r1-1b",
          role: "assistant",
          parts: [{ type: "text", text: "A branch written elsewhere" }],
        },
        "r1-0",
      );
    await page.waitForSelector('.graph-canvas .node[data-id="r1-1b"]', {
      timeout: 20_000,
    });
    labels = await treeLabels();
    for (const id of ["r1-0", "r1-1", "r1-3"])
      expect(labels[id]!.length, `label of ${id}`).toBeGreaterThan(10);
  });

  it("says plainly that the server is unreachable, keeps the view in step with the address, and clears the message once it is back", async () => {
    await open(`#/s/${tripId}/chat`);
    await page.waitForSelector(".chat .message");
    const port = new URL(server.url).port;
    await server.close();
    await page.click('nav.tabs a:has-text("Tree")');
    await page.waitForSelector(".alert:not([hidden])");
    const alertText = await page.locator(".alert").innerText();
    expect(alertText).toContain("cannot be reached");
    expect(alertText).not.toContain("Failed to fetch");
    expect(page.url()).toContain("/tree");
    await page.waitForSelector("main .load-failed");
    expect(await page.locator("main .chat").count()).toBe(0);
    server = await startStudioServer(
      dbFile(),
      studioDir(),
      undefined,
      Number(port),
    );
    await page.waitForSelector(".graph-canvas .node", { timeout: 10_000 });
    await page.waitForSelector(".alert", { state: "hidden" });
    expect(await mainText(page)).not.toContain("could not be loaded");
  });
});
