// The chat example (examples/chat: Hono, Vite, React with @ai-sdk/react) in Debian's Chromium,
// on ai 6 with @ai-sdk/react 3 and on ai 5 with @ai-sdk/react 2, with the example's scripted
// offline model (a stand-in, not a language model): send, regenerate, edit, switch branches and
// back, stop mid-answer and reload (the partial answer is there), reload mid-answer (the answer
// resumes). Needs the build (dist/), as the example imports arbor-memory by name.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureChromium, launchBrowser } from "../studio/support/browser.js";

interface ChatExample {
  url: string;
  close(): Promise<void>;
}
type Start = (options: {
  port: number;
  dbPath: string;
  aiVersion: number;
  delayMs?: number;
  log?: (line: string) => void;
}) => Promise<ChatExample>;

const hasChromium = ensureChromium();
const SERVER = "../../examples/chat/server.mjs";

for (const aiVersion of [6, 5]) {
  describe.skipIf(!hasChromium)(
    `the chat example in Chromium on ai ${aiVersion} (scripted offline model)`,
    () => {
      let example: ChatExample;
      let browser: { context: BrowserContext; close(): Promise<void> };
      let page: Page;
      const dir = mkdtempSync(join(tmpdir(), "arbor-chat-example-"));

      beforeAll(async () => {
        const { startChatExample } = (await import(SERVER)) as {
          startChatExample: Start;
        };
        example = await startChatExample({
          port: 0,
          dbPath: join(dir, "chat.db"),
          aiVersion,
          delayMs: 5,
          log: () => undefined,
        });
        browser = await launchBrowser();
        page = await browser.context.newPage();
      }, 120_000);

      afterAll(async () => {
        await browser?.close();
        await example?.close();
        rmSync(dir, { recursive: true, force: true });
      });

      const assistant = () => page.getByTestId("message-assistant").last();
      const user = () => page.getByTestId("message-user").last();
      const ready = () =>
        page.locator('main[data-status="ready"][data-busy="false"]').waitFor();
      const send = async (text: string) => {
        await page.getByLabel("Message").fill(text);
        await page.getByRole("button", { name: /Send|Save/ }).click();
      };

      it("sends, regenerates and switches between the answers", async () => {
        await page.goto(`${example.url}/`);
        await ready();
        await send("hello");
        await expect
          .poll(() => assistant().textContent())
          .toContain("answer number 1");
        await ready();
        await assistant().getByRole("button", { name: "Regenerate" }).click();
        await expect
          .poll(() => assistant().textContent())
          .toContain("answer number 2");
        await ready();
        await expect
          .poll(() => assistant().getByTestId("position").textContent())
          .toBe("2/2");
        await assistant()
          .getByRole("button", { name: "Previous branch" })
          .click();
        await expect
          .poll(() => assistant().textContent())
          .toContain("answer number 1");
        await expect
          .poll(() => assistant().getByTestId("position").textContent())
          .toBe("1/2");
        await assistant().getByRole("button", { name: "Next branch" }).click();
        await expect
          .poll(() => assistant().textContent())
          .toContain("answer number 2");
        // The server keeps the choice: a reload shows the same branch.
        await page.reload();
        await ready();
        await expect
          .poll(() => assistant().textContent())
          .toContain("answer number 2");
      }, 60_000);

      it("edits a message into a sibling branch, and switches back to the original", async () => {
        await user().getByRole("button", { name: "Edit" }).click();
        await send("hi again");
        await expect
          .poll(() => assistant().textContent())
          .toContain("answer number 3");
        await ready();
        await expect.poll(() => user().textContent()).toContain("hi again");
        await expect
          .poll(() => user().getByTestId("position").textContent())
          .toBe("2/2");
        await user().getByRole("button", { name: "Previous branch" }).click();
        await expect.poll(() => user().textContent()).toContain("hello");
        await expect
          .poll(() => assistant().textContent())
          .toContain("answer number 2");
      }, 60_000);

      it("stop keeps the partial answer: it is there after a reload", async () => {
        await send("tell me a long story");
        await expect.poll(() => assistant().textContent()).toContain("word5");
        await page.getByRole("button", { name: "Stop" }).click();
        await ready();
        await page.reload();
        await ready();
        await expect
          .poll(() => assistant().getAttribute("data-partial"))
          .toBe("true");
        const text = (await assistant().textContent()) ?? "";
        expect(text).toContain("word5");
        expect(text).not.toContain("END.");
      }, 60_000);

      it("a reload mid-answer resumes the answer to its end", async () => {
        await send("another long one please");
        await expect.poll(() => assistant().textContent()).toContain("word3");
        await page.reload();
        await expect
          .poll(() => assistant().textContent(), { timeout: 20_000 })
          .toContain("END.");
        await ready();
        expect(await user().textContent()).toContain("another long one please");
        await page.reload();
        await ready();
        await expect.poll(() => assistant().textContent()).toContain("END.");
        expect(await assistant().getAttribute("data-partial")).toBe("false");
      }, 60_000);
    },
  );
}
