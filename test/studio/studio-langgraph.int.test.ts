// A LangGraph thread in the studio, in real Chromium: a StateGraph over ArborCheckpointSaver on a
// SQLite file, its model a scripted fake (FakeListChatModel of @langchain/core), runs two turns,
// is forked by time travel (`updateState` on the checkpoint before the second answer, the
// question edited), and runs on. The HTTP server then serves that file: the studio shows the fork
// as a branch, the ← 1/2 → switcher at the fork point, and both branches read in full.
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import {
  END,
  MessagesAnnotation,
  START,
  StateGraph,
} from "@langchain/langgraph";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ArborCheckpointSaver } from "../../src/langgraph/index.js";
import { sqliteBackend } from "../../src/sqlite/index.js";
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
const THREAD = "lisbon-trip";

describe.skipIf(!available)(
  "a LangGraph thread forked by time travel, in the studio (fake scripted chat model)",
  () => {
    let folder: Awaited<ReturnType<typeof temporaryFolder>>;
    let server: StudioServer;
    let browser: Awaited<ReturnType<typeof launchBrowser>>;
    let page: Page;
    /** The Arbor ids of the two questions at the fork point: the original and the edit. */
    let budgetId: string;
    let museumsId: string;

    beforeAll(async () => {
      folder = await temporaryFolder();
      const file = join(folder.path, "agent.db");
      ({ budgetId, museumsId } = await runForkedThread(file));
      buildStudioInto(join(folder.path, "studio"));
      server = await startStudioServer(file, join(folder.path, "studio"));
      browser = await launchBrowser();
      page = await browser.context.newPage();
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      await server?.close();
      await folder?.remove();
    });

    it("shows the fork as a branch with a switcher at the fork point, both branches readable", async () => {
      await page.goto(`${server.url}/#/s/${THREAD}/chat`);
      await page.waitForSelector(`.message[data-message-id="${museumsId}"]`);
      // The active branch is the fork's.
      let text = await mainText(page);
      expect(text).toContain("What about museums?");
      expect(text).toContain("The Gulbenkian museum is a must.");
      expect(text).not.toContain("Plan about 80 euros a day.");
      expect(
        await page
          .locator(`[data-message-id="${museumsId}"] .sibling-count`)
          .innerText(),
      ).toBe("2/2");

      // ← to the original branch: the question and answer before the edit, in full.
      await page.click(
        `[data-message-id="${museumsId}"] button[aria-label="Previous branch"]`,
      );
      await page.waitForSelector(
        `.message.focused[data-message-id="${budgetId}"]`,
      );
      text = await mainText(page);
      expect(text).toContain("This is not the active branch");
      expect(text).toContain("I plan a trip to Lisbon");
      expect(text).toContain("Lisbon in May is mild and sunny.");
      expect(text).toContain("What about the budget?");
      expect(text).toContain("Plan about 80 euros a day.");
      expect(text).not.toContain("Gulbenkian");
      expect(
        await page
          .locator(`[data-message-id="${budgetId}"] .sibling-count`)
          .innerText(),
      ).toBe("1/2");

      // → back to the fork.
      await page.click(
        `[data-message-id="${budgetId}"] button[aria-label="Next branch"]`,
      );
      await page.waitForSelector(
        `.message.focused[data-message-id="${museumsId}"]`,
      );
      text = await mainText(page);
      expect(text).not.toContain("This is not the active branch");
      expect(text).toContain("The Gulbenkian museum is a must.");
    });
  },
);

// --- Internal helpers ---

/**
 * Two turns of a StateGraph on `file`, then a time-travel fork that edits the second question
 * (same LangGraph message id) and runs on; returns the Arbor ids of both questions.
 */
async function runForkedThread(
  file: string,
): Promise<{ budgetId: string; museumsId: string }> {
  const backend = sqliteBackend(file);
  const saver = new ArborCheckpointSaver(backend);
  const model = new FakeListChatModel({
    responses: [
      "Lisbon in May is mild and sunny.",
      "Plan about 80 euros a day.",
      "The Gulbenkian museum is a must.",
    ],
  });
  const graph = new StateGraph(MessagesAnnotation)
    .addNode("model", async (state) => ({
      messages: [await model.invoke(state.messages)],
    }))
    .addEdge(START, "model")
    .addEdge("model", END)
    .compile({ checkpointer: saver });
  const thread = { configurable: { thread_id: THREAD } };
  try {
    await graph.invoke(
      { messages: [new HumanMessage("I plan a trip to Lisbon")] },
      thread,
    );
    await graph.invoke(
      { messages: [new HumanMessage("What about the budget?")] },
      thread,
    );
    let beforeSecondAnswer: Awaited<ReturnType<typeof graph.getState>> | null =
      null;
    for await (const snapshot of graph.getStateHistory(thread)) {
      const messages = snapshot.values.messages ?? [];
      if (messages.length === 3 && snapshot.next.includes("model"))
        beforeSecondAnswer = snapshot;
    }
    const question = beforeSecondAnswer!.values.messages[2]!;
    const forked = await graph.updateState(beforeSecondAnswer!.config, {
      messages: [
        new HumanMessage({ id: question.id!, content: "What about museums?" }),
      ],
    });
    await graph.invoke(null, forked);

    const history = await saver.manager.getHistory(THREAD);
    const questions = await saver.manager.getBranches(THREAD, history[1]!.id);
    const idOf = (text: string) =>
      questions.find((message) => message.parts[0]?.text === text)!.id;
    return {
      budgetId: idOf("What about the budget?"),
      museumsId: idOf("What about museums?"),
    };
  } finally {
    backend.sqlite.close();
  }
}
