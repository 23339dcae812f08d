// Long, real histories in real Chromium against the real HTTP API over SQLite: a conversation of
// 2,000 messages shows its newest window before the tree is read and keeps its header and tabs in
// reach; Markdown as models write it; agent runs; the tree view's labels, detail and cursor; and
// search hits that say which branch they are on.
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

describe.skipIf(!available)("long histories in Chromium", () => {
  let folder: Awaited<ReturnType<typeof temporaryFolder>>;
  let server: StudioServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let longId: string;

  beforeAll(async () => {
    folder = await temporaryFolder();
    buildStudioInto(join(folder.path, "studio"));
    server = await startStudioServer(
      join(folder.path, "studio.db"),
      join(folder.path, "studio"),
    );
    longId = await seedLong(server.manager);
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
      await route.continue();
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
});
