// Importing in real Chromium: several files dropped at once are all imported, one after the
// other (a Claude Code 2.x session with its subagent file, the subagent first, ends up linked:
// the Task call opens the subagent's session), and injected context in the transcript is one
// folded line naming its kind, which opens to the message whole.
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

const SESSION_FILE = "5b0e7c1d-3f2a-4c8e-9d61-0a7e4f2b9c35.jsonl";
const AGENT_FILE = "agent-a7c31f0.jsonl";
const fixture = (name: string) =>
  readFileSync(
    new URL(`../formats/fixtures/claude-code-2x/${name}`, import.meta.url),
    "utf8",
  );

describe.skipIf(!available)("studio imports in Chromium", () => {
  let folder: Awaited<ReturnType<typeof temporaryFolder>>;
  let server: StudioServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;

  beforeAll(async () => {
    folder = await temporaryFolder();
    buildStudioInto(join(folder.path, "studio"));
    server = await startStudioServer(
      join(folder.path, "studio.db"),
      join(folder.path, "studio"),
    );
    browser = await launchBrowser();
    page = await browser.context.newPage();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await folder?.remove();
  });

  it("imports every dropped file, and links the subagent file dropped before its session", async () => {
    await page.goto(`${server.url}/#/`);
    await page.waitForSelector("main");
    const transfer = await page.evaluateHandle(
      `(() => {
        const data = new DataTransfer();
        data.items.add(new File([${JSON.stringify(fixture(AGENT_FILE))}], ${JSON.stringify(AGENT_FILE)}));
        data.items.add(new File([${JSON.stringify(fixture(SESSION_FILE))}], ${JSON.stringify(SESSION_FILE)}));
        return data;
      })()`,
    );
    await page.dispatchEvent("main", "dragenter", { dataTransfer: transfer });
    await page.dispatchEvent("main", "drop", { dataTransfer: transfer });
    const lines = page.locator(".import-panel .import-file");
    // Both lines report (the second file's import starts when the first one's ends).
    await page.waitForFunction(
      `[...document.querySelectorAll(".import-panel .import-file")]
        .filter((line) => line.textContent.includes("Imported")).length === 2`,
    );
    expect(await lines.count()).toBe(2);
    expect(await lines.nth(0).innerText()).toContain(
      `Imported 1 session from ${AGENT_FILE}`,
    );
    expect(await lines.nth(1).innerText()).toContain(
      `Imported 1 session from ${SESSION_FILE}`,
    );
    const sessions = await server.manager.list();
    expect(sessions).toHaveLength(2);
    const main = sessions.find((s) => s.parent_session_id === null)!;
    const sub = sessions.find((s) => s.parent_session_id === main.id)!;
    expect(sub).toBeDefined();

    await page.goto(`${server.url}/#/s/${encodeURIComponent(main.id)}/chat`);
    await page.waitForSelector(".chat .message");
    const link = page.locator(".subagent-link");
    expect(await link.count()).toBe(1);
    expect(await link.getAttribute("href")).toBe(
      `#/s/${encodeURIComponent(sub.id)}/chat`,
    );
  });

  it("folds injected context to one line naming its kind, which opens to the whole message", async () => {
    const [main] = (await server.manager.list()).filter(
      (s) => s.parent_session_id === null,
    );
    await page.goto(`${server.url}/#/s/${encodeURIComponent(main!.id)}/chat`);
    await page.waitForSelector(".chat .message");
    const folded = page.locator(".chat .message .injected-context");
    // The transcript renders after its first message appears: wait for the folds, not a pause.
    await expect.poll(() => folded.count(), { timeout: 30_000 }).toBe(3);
    expect(
      (await folded.locator("summary").allTextContents()).map((text) =>
        text.replace(/\s+/g, " ").trim(),
      ),
    ).toEqual([
      "context system-reminder · 1 line",
      "context slash-command · 3 lines",
      "context command-output · 1 line",
    ]);
    expect(await page.locator(".chat").innerText()).not.toContain(
      "Caveat: The messages below",
    );
    const command = folded.nth(1);
    await command.locator("summary").click();
    // innerText is "" until the opened <details> is laid out: wait for the text, not a pause.
    await expect
      .poll(() => command.locator(".parts").innerText(), { timeout: 30_000 })
      .toContain("<command-name>/clear</command-name>");
    // The prompt itself is not folded.
    expect(
      await page
        .locator(".chat .message:not(:has(.injected-context))", {
          hasText: "Totals on the invoice export are off by a cent",
        })
        .count(),
    ).toBe(1);
  });
});
