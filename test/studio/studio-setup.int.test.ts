// The studio's edges, in real Chromium: an empty database, API keys (a 401 asks for a key, kept
// in sessionStorage only), a 5,000-message tree, dark mode, and assets that need no network.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InMemoryApiKeyStore } from "../../src/server/index.js";
import { ensureChromium, launchBrowser } from "./support/browser.js";
import {
  buildStudioInto,
  mainText,
  temporaryFolder,
} from "./support/harness.js";
import { seedLargeSession, seedSessions } from "./support/seed.js";
import { startStudioServer } from "./support/studio-server.js";

const available = ensureChromium();
const SAMPLE = fileURLToPath(
  new URL("../../examples/sample/sample.arbor.jsonl", import.meta.url),
);

describe.skipIf(!available)("studio edges in Chromium", () => {
  let folder: Awaited<ReturnType<typeof temporaryFolder>>;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  const studioDir = () => join(folder.path, "studio");

  beforeAll(async () => {
    folder = await temporaryFolder();
    buildStudioInto(studioDir());
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await folder?.remove();
  });

  it("builds assets that load nothing from the network, its JavaScript under 80 KB minified", async () => {
    const html = await readFile(join(studioDir(), "index.html"), "utf8");
    const css = await readFile(join(studioDir(), "app.css"), "utf8");
    const js = await readFile(join(studioDir(), "app.js"), "utf8");
    expect(html).not.toMatch(/https?:\/\//);
    expect(css).not.toMatch(/https?:\/\/|@import|@font-face/);
    // The SVG namespace is a name, not a request.
    expect(js.replace("http://www.w3.org/2000/svg", "")).not.toMatch(
      /https?:\/\//,
    );
    expect(js).not.toMatch(/^\s*import\s/m);
    // The studio stays one small bundle (docs/studio.md): a byte count, not a timing.
    expect(Buffer.byteLength(js)).toBeLessThan(80 * 1024);
  });

  it("shows how to import on an empty database", async () => {
    const server = await startStudioServer(
      join(folder.path, "empty.db"),
      studioDir(),
    );
    const page = await browser.context.newPage();
    try {
      await page.goto(server.url + "/");
      await page.waitForSelector(".empty-state");
      const text = await mainText(page);
      expect(text).toContain("No sessions yet");
      expect(text).toContain("arbor import examples/sample/sample.arbor.jsonl");
      // The sample, through the file picker the empty state's button opens.
      const chooser = page.waitForEvent("filechooser");
      await page.click('button:has-text("Choose a file to import")');
      await (await chooser).setFiles(SAMPLE);
      await page.waitForSelector(
        'h1:has-text("Planning the Tidepool 2.0 launch")',
      );
      await page.waitForSelector(".chat .message");
      // The sample's Markdown **bold** shows as bold, without its asterisks.
      const strong = page.locator(".chat .part-text strong", {
        hasText: "00:01",
      });
      expect(await strong.first().innerText()).toBe("00:01");
      expect(await mainText(page)).not.toContain("**00:01**");
    } finally {
      await page.close();
      await server.close();
    }
  });

  it("asks for an API key on a 401 and keeps it in sessionStorage only", async () => {
    const keys = new InMemoryApiKeyStore();
    const { key } = await keys.create("alice");
    const file = join(folder.path, "keys.db");
    const server = await startStudioServer(file, studioDir(), keys);
    await seedSessions(server.manager);
    const page = await browser.context.newPage();
    try {
      await page.goto(server.url + "/");
      await page.waitForSelector("dialog.key-dialog[open]");
      await page.fill('dialog input[name="key"]', "arbor_sk_wrong");
      await page.click('dialog button[value="ok"]');
      await page.waitForSelector(
        'dialog.key-dialog[open]:has-text("did not accept")',
      );
      await page.fill('dialog input[name="key"]', key);
      await page.click('dialog button[value="ok"]');
      await page.waitForSelector("tbody tr");
      // The key's tenant sees its own sessions only.
      expect(await page.locator("tbody tr").allInnerTexts()).toEqual([
        expect.stringContaining("Trip to Lisbon"),
      ]);
      expect(
        await page.evaluate("sessionStorage.getItem('arbor.studio.apiKey')"),
      ).toBe(key);
      expect(await page.evaluate("localStorage.length")).toBe(0);
      expect(await page.evaluate("document.cookie")).toBe("");
    } finally {
      await page.close();
      await server.close();
    }
  });

  it("draws a 5,000-message tree with 200 branch points, rendering only what is visible", async () => {
    const server = await startStudioServer(
      join(folder.path, "large.db"),
      studioDir(),
    );
    const id = await seedLargeSession(server.manager, 5000, 200);
    const page = await browser.context.newPage();
    try {
      // What is drawn is asserted, not how fast (CI machines are loaded; speed is for bench/).
      await page.goto(`${server.url}/#/s/${id}/tree`);
      await page.waitForSelector(".graph-canvas .node");
      expect(await mainText(page)).toContain(
        "5,000 messages, 200 branch points",
      );
      const drawn = await page.locator(".graph-canvas .node").count();
      expect(drawn).toBeGreaterThan(10);
      expect(drawn).toBeLessThan(500);
      // Scrolling to the top draws the root, which was off screen around the active leaf.
      expect(
        await page.locator('.graph-canvas .node[data-id="m0"]').count(),
      ).toBe(0);
      await page.evaluate(
        "document.querySelector('.graph-scroll').scrollTo(0, 0)",
      );
      await page.waitForSelector('.graph-canvas .node[data-id="m0"]');
      await page.click('.graph-canvas .node[data-id="s0-2"]');
      await page.waitForSelector('.message.focused[data-message-id="s0-2"]');
      // The chat of the longest path (4,400 messages) opens at its newest message and draws
      // only what is near the screen.
      await page.goto(`${server.url}/#/s/${id}/chat`);
      await page.waitForSelector('.message[data-message-id="m4399"]');
      expect(await page.locator(".chat > .message").count()).toBeLessThan(100);
      expect(
        await page.evaluate(
          "innerHeight + scrollY >= document.documentElement.scrollHeight - 40",
        ),
      ).toBe(true);
      // Scrolling up (to the list's top, the header off screen) loads the older windows, down to the first message.
      await page.waitForFunction(
        `(window.scrollTo(0, document.querySelector(".chat.windowed").getBoundingClientRect().top + scrollY), document.querySelector('[data-message-id="m0"]') !== null)`,
        undefined,
        { polling: 100, timeout: 30_000 },
      );
      expect(await page.locator(".chat > .message").count()).toBeLessThan(100);
    } finally {
      await page.close();
      await server.close();
    }
  }, 120_000);

  it("reads in dark mode", async () => {
    const server = await startStudioServer(
      join(folder.path, "dark.db"),
      studioDir(),
    );
    await seedSessions(server.manager);
    const page = await browser.context.newPage();
    try {
      await page.emulateMedia({ colorScheme: "dark" });
      await page.goto(server.url + "/");
      await page.waitForSelector("tbody tr");
      const colors = await page.evaluate(
        "[getComputedStyle(document.body).backgroundColor, getComputedStyle(document.body).color]",
      );
      expect(colors).toEqual(["rgb(15, 18, 22)", "rgb(230, 233, 238)"]);
    } finally {
      await page.close();
      await server.close();
    }
  });
});
