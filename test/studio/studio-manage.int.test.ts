// Managing sessions from the studio in real Chromium against the real HTTP API over SQLite:
// rename, delete (an erase, after a confirmation), Continue from here (a fork at a message),
// export in the formats `arbor export` writes, started sessions nested under their parent, the
// off-branch bar that stays in view, and axe on the views these touch (landmark-unique on the
// branch switchers, heading-order on Blocks), light and dark, at 1280 and 390 px.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureChromium, launchBrowser } from "./support/browser.js";
import {
  buildStudioInto,
  mainText,
  temporaryFolder,
} from "./support/harness.js";
import { SEEDED, seedLargeSession, seedSessions } from "./support/seed.js";
import {
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

describe.skipIf(!available)("managing sessions in the studio", () => {
  let folder: Awaited<ReturnType<typeof temporaryFolder>>;
  let server: StudioServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let tripId: string;
  let otherId: string;
  let largeId: string;
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
    ({ tripId, otherId } = await seedSessions(server.manager));
    // 600 messages, 6 side branches of 3: a branch off the active one that is long to scroll.
    largeId = await seedLargeSession(server.manager, 600, 6);
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

  const api = async <T>(path: string): Promise<{ status: number; body: T }> => {
    const response = await fetch(server.url + path);
    return {
      status: response.status,
      body: (response.status === 204 ? null : await response.json()) as T,
    };
  };
  const session = (id: string) =>
    api<{ name: string; updated_at: string; parent_session_id: string | null }>(
      `/v1/sessions/${id}`,
    );
  const open = async (hash: string) => {
    await page.goto("about:blank");
    await page.goto(`${server.url}/${hash}`);
    await page.waitForSelector("main:not([aria-busy]) > *");
  };
  /** axe-core's violations on the page as it is (every rule axe runs by default). */
  const axe = async (): Promise<AxeViolation[]> => {
    if (!(await page.evaluate("typeof window.axe !== 'undefined'")))
      await page.addScriptTag({ content: await readFile(AXE_PATH, "utf8") });
    return page.evaluate<AxeViolation[]>(
      "axe.run(document).then((r) => r.violations.map((v) => ({ id: v.id, nodes: v.nodes.map((n) => ({ target: n.target })) })))",
    );
  };

  it("nests the sessions a session started under it, loaded on demand, so they never fill the list's pages", async () => {
    const parent = await server.manager.create("Coding agent run", {});
    await server.manager.append(parent.id, {
      id: "p1",
      role: "user",
      parts: [{ type: "text", text: "Fix the build" }],
    });
    const children: string[] = [];
    // More children than a page of the list holds, all written after the other sessions.
    for (let index = 0; index < 27; index++)
      children.push(
        (
          await server.manager.create(`Subagent ${index}`, {
            parentSessionId: parent.id,
          })
        ).id,
      );
    const grandchild = await server.manager.create("Nested subagent", {
      parentSessionId: children[26]!,
    });
    await open("#/");
    const parentRow = page.locator(`tr[data-session-id="${parent.id}"]`);
    await parentRow.waitFor();
    // The first page holds the top level only: the parent and the seeded sessions.
    const listed = await page.evaluate<string[]>(
      `[...document.querySelectorAll("tbody tr")].map((row) => row.getAttribute("data-session-id"))`,
    );
    expect(listed.sort()).toEqual([parent.id, tripId, otherId, largeId].sort());
    const toggle = parentRow.locator("button.children-toggle");
    expect(await toggle.innerText()).toBe("▸ 27 started sessions");
    expect(await toggle.getAttribute("aria-expanded")).toBe("false");
    await toggle.click();
    await page.waitForSelector(
      `tr.child-session[data-parent-id="${parent.id}"]`,
    );
    await expect
      .poll(() =>
        page.locator(`tr.child-session[data-parent-id="${parent.id}"]`).count(),
      )
      .toBe(27);
    expect(await toggle.getAttribute("aria-expanded")).toBe("true");
    // A child that started one of its own opens it too, below itself and indented further.
    const last = page.locator(`tr[data-session-id="${children[26]}"]`);
    expect(await last.locator("button.children-toggle").innerText()).toBe(
      "▸ 1 started session",
    );
    await last.locator("button.children-toggle").click();
    const nested = page.locator(`tr[data-session-id="${grandchild.id}"]`);
    await nested.waitFor();
    const indent = (id: string) =>
      page.evaluate<number>(
        `parseFloat(getComputedStyle(document.querySelector('tr[data-session-id="${id}"] td')).paddingLeft)`,
      );
    expect(await indent(grandchild.id)).toBeGreaterThan(
      await indent(children[0]!),
    );
    expect(await indent(children[0]!)).toBeGreaterThan(await indent(parent.id));
    expect(await axe()).toEqual([]);
    // Folding the parent folds its descendants with it.
    await toggle.click();
    await expect.poll(() => page.locator("tr.child-session").count()).toBe(0);
    // The child's own page links back to its parent.
    await open(`#/s/${children[0]}/chat`);
    expect(await mainText(page)).toContain("Started by the parent session");
  });

  it("renames a session from its header: Save writes the name, Escape and Cancel write nothing", async () => {
    await open(`#/s/${otherId}/chat`);
    const before = (await session(otherId)).body;
    await page.click('.session-header button:has-text("Rename")');
    const input = page.locator('.rename-form input[name="name"]');
    expect(await input.inputValue()).toBe(SEEDED.otherName);
    expect(
      await page.evaluate("document.activeElement?.getAttribute('name')"),
    ).toBe("name");
    await input.fill("Not saved");
    await page.keyboard.press("Escape");
    await page.waitForSelector(".rename-form", { state: "detached" });
    await page.click('.session-header button:has-text("Rename")');
    await page.fill('.rename-form input[name="name"]', "Also not saved");
    await page.click('.rename-form button:has-text("Cancel")');
    await page.waitForSelector(".rename-form", { state: "detached" });
    expect((await session(otherId)).body).toEqual(before);

    await page.click('.session-header button:has-text("Rename")');
    await page.fill('.rename-form input[name="name"]', "Release planning");
    await page.keyboard.press("Enter");
    await page.waitForSelector('h1:has-text("Release planning")');
    await page.waitForSelector(".rename-form", { state: "detached" });
    expect((await session(otherId)).body.name).toBe("Release planning");
  });

  it("exports the formats arbor export writes, as downloads that write nothing", async () => {
    await open(`#/s/${tripId}/chat`);
    const before = (await session(tripId)).body;
    const save = async (format: string) => {
      await page.click(".export-menu summary");
      const [download] = await Promise.all([
        page.waitForEvent("download"),
        page.click(`.export-menu button[data-format="${format}"]`),
      ]);
      const path = await download.path();
      return {
        name: download.suggestedFilename(),
        text: await readFile(path, "utf8"),
      };
    };
    const jsonl = await save("jsonl");
    expect(jsonl.name).toBe("Trip-to-Lisbon.arbor.jsonl");
    const lines = jsonl.text.trim().split("\n");
    expect(lines.length).toBeGreaterThan(7);
    expect(jsonl.text).toContain("Azulejo");
    expect(jsonl.text).toContain("Gulbenkian");
    const snapshot = await save("snapshot");
    expect(snapshot.name).toBe("Trip-to-Lisbon.json");
    expect(JSON.parse(snapshot.text)).toMatchObject({
      format: "arbor.session",
      sessionId: tripId,
    });
    const markdown = await save("markdown");
    expect(markdown.name).toBe("Trip-to-Lisbon.md");
    expect(markdown.text).toContain("grilled sardines");
    expect(markdown.text).not.toContain("Gulbenkian");
    // Markdown is the branch on screen: the other branch when browsing it.
    await open(`#/s/${tripId}/chat?leaf=a2&focus=a2`);
    const other = await save("markdown");
    expect(other.text).toContain("Gulbenkian");
    expect(other.text).not.toContain("grilled sardines");
    expect((await session(tripId)).body).toEqual(before);
  });

  it("continues from any message: a new session holding the path up to it and the session's blocks, the source unchanged", async () => {
    // A block created in the session goes with the fork, with its content at the fork.
    await server.manager.createContextBlock(tripId, "fork-plans", {
      description: "Plans made before the fork",
      content: "Book the tile museum for Tuesday.",
    });
    await open(`#/s/${tripId}/chat`);
    const sourceBefore = await api<{ messages: Array<{ id: string }> }>(
      `/v1/sessions/${tripId}/history`,
    );
    const button = page.locator(
      '[data-message-id="u2"] > header button:has-text("Continue from here")',
    );
    await button.click();
    await page.waitForSelector(`h1:has-text("${SEEDED.tripName} (fork)")`);
    const forkId = decodeURIComponent(
      await page.evaluate<string>("location.hash"),
    ).split("/")[2]!;
    expect(forkId).not.toBe(tripId);
    // The fork's messages are copies under new ids: its last one is u2's text.
    await page.waitForSelector(
      '.chat .message:has-text("Which museum should we visit?")',
    );
    const text = await mainText(page);
    expect(text).not.toContain("Azulejo");
    expect(text).toContain("Started by the parent session");
    const fork = await api<{
      messages: Array<{ parts: Array<{ text?: string }> }>;
    }>(`/v1/sessions/${forkId}/history`);
    // The overlay over u1 … a1 comes along, so its history is the source's at u2.
    expect(
      fork.body.messages.map((message) => message.parts[0]?.text ?? ""),
    ).toEqual([
      expect.stringContaining(SEEDED.overlaySummary),
      "Which museum should we visit?",
    ]);
    expect((await session(forkId)).body.parent_session_id).toBe(tripId);
    type Blocks = {
      blocks: Array<{ label: string; content: string; description?: string }>;
    };
    const blocksOf = async (id: string) =>
      (await api<Blocks>(`/v1/sessions/${id}/blocks`)).body.blocks.map(
        ({ label, content, description }) => ({ label, content, description }),
      );
    const forkBlocks = await blocksOf(forkId);
    expect(forkBlocks).toContainEqual({
      label: "fork-plans",
      content: "Book the tile museum for Tuesday.",
      description: "Plans made before the fork",
    });
    // The declared blocks come along with their contents too: the fork has the source's blocks.
    expect(forkBlocks).toEqual(await blocksOf(tripId));
    expect(
      await api(`/v1/sessions/${tripId}/history`).then((answer) => answer.body),
    ).toEqual(sourceBefore.body);
  });

  it("keeps Make this branch active in view anywhere in a long branch off the active one", async () => {
    const tree = await api<{ nodes: Array<{ id: string }> }>(
      `/v1/sessions/${largeId}/tree`,
    );
    // The last side branch: its leaf is far down a path of hundreds of messages.
    const sideLeaves = tree.body.nodes
      .map((node) => node.id)
      .filter((id) => /^s\d+-2$/.test(id));
    const leaf = sideLeaves
      .sort(
        (a, b) =>
          Number(a.slice(1).split("-")[0]) - Number(b.slice(1).split("-")[0]),
      )
      .at(-1)!;
    const bar = page.locator(
      '.banner button:has-text("Make this branch active")',
    );
    const inView = () =>
      page.evaluate<boolean>(`(() => {
        const box = document.querySelector(".banner button").getBoundingClientRect();
        return box.top >= 0 && box.bottom <= window.innerHeight;
      })()`);
    // Opened at a message in the middle of the branch, then scrolled to its end and further up.
    await open(`#/s/${largeId}/chat?leaf=${leaf}&focus=m300`);
    await page.waitForSelector('.message.focused[data-message-id="m300"]');
    expect(await inView()).toBe(true);
    await page.evaluate("window.scrollTo(0, document.body.scrollHeight)");
    await page.waitForSelector(`[data-message-id="${leaf}"]`);
    await expect.poll(inView).toBe(true);
    await page.evaluate("window.scrollBy(0, -2000)");
    await expect.poll(inView).toBe(true);
    expect(await axe()).toEqual([]);
    const before = await api<{ message: { id: string } }>(
      `/v1/sessions/${largeId}/leaf`,
    );
    expect(before.body.message.id).not.toBe(leaf);
    await bar.click();
    await page.waitForFunction('!document.querySelector(".banner")');
    const after = await api<{ message: { id: string } }>(
      `/v1/sessions/${largeId}/leaf`,
    );
    expect(after.body.message.id).toBe(leaf);
  });

  it("passes axe on a conversation with several branch switchers (landmark-unique)", async () => {
    // Two branch points on screen: each switcher is a group, not a second landmark of one name.
    const forked = await server.manager.create("Two branch points", {});
    const say = (id: string, role: "user" | "assistant", words: string) => ({
      id,
      role,
      parts: [{ type: "text", text: words }],
    });
    await server.manager.append(
      forked.id,
      say("q1", "user", "First question"),
      null,
    );
    await server.manager.append(
      forked.id,
      say("r1", "assistant", "One answer"),
      "q1",
    );
    await server.manager.append(
      forked.id,
      say("r1b", "assistant", "Another answer"),
      "q1",
    );
    await server.manager.append(
      forked.id,
      say("q2", "user", "Second question"),
      "r1b",
    );
    await server.manager.append(
      forked.id,
      say("r2", "assistant", "Answer A"),
      "q2",
    );
    await server.manager.append(
      forked.id,
      say("r2b", "assistant", "Answer B"),
      "q2",
    );
    await open(`#/s/${forked.id}/chat`);
    await page.waitForSelector('[data-message-id="r2b"] .siblings');
    expect(await page.locator(".chat .siblings").count()).toBe(2);
    expect(await axe()).toEqual([]);
    await open(`#/s/${tripId}/chat`);
    await page.waitForSelector('[data-message-id="a2b"] .siblings');
    expect(await axe()).toEqual([]);
  });

  it("passes axe on Blocks (heading-order: a block's title is the level under the page's h1)", async () => {
    await open(`#/s/${tripId}/blocks`);
    await page.waitForSelector('.block[data-label="memory"]');
    expect(await axe()).toEqual([]);
    expect(await page.locator(".block h2").count()).toBeGreaterThan(0);
  });

  it("works at 390 px and in dark mode: header actions, the export menu and the rename form, axe clean", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.emulateMedia({ colorScheme: "dark" });
    try {
      await open(`#/s/${tripId}/chat?leaf=a2&focus=a2`);
      await page.waitForSelector(".banner.off-branch");
      await page.click(".export-menu summary");
      await page.waitForSelector(".export-menu[open] .menu-items");
      expect(await page.evaluate(OVERFLOW)).toBeLessThanOrEqual(0);
      expect(await axe()).toEqual([]);
      await page.click(".export-menu summary");
      await page.click('.session-header button:has-text("Rename")');
      await page.waitForSelector(".rename-form");
      expect(await page.evaluate(OVERFLOW)).toBeLessThanOrEqual(0);
      expect(await axe()).toEqual([]);
      await open("#/");
      await page.locator("tr button.children-toggle").first().click();
      await page.waitForSelector("tr.child-session");
      expect(await page.evaluate(OVERFLOW)).toBeLessThanOrEqual(0);
      expect(await axe()).toEqual([]);
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.emulateMedia({ colorScheme: "light" });
    }
  });

  it("deletes a session only after the confirmation, erasing it", async () => {
    const doomed = await server.manager.create("Scratch session", {});
    await server.manager.append(doomed.id, {
      id: "x1",
      role: "user",
      parts: [{ type: "text", text: "Throwaway note about pelicans" }],
    });
    await open(`#/s/${doomed.id}/chat`);
    dialogs.length = 0;
    confirmAnswer = false;
    await page.click('.session-header button:has-text("Delete…")');
    await expect.poll(() => dialogs.length).toBe(1);
    expect(dialogs[0]).toContain("Scratch session");
    expect(dialogs[0]).toContain("cannot be undone");
    expect(dialogs[0]).toContain("embeddings, attachments and audit events");
    expect((await session(doomed.id)).status).toBe(200);
    expect(page.url()).toContain(doomed.id);

    confirmAnswer = true;
    await page.click('.session-header button:has-text("Delete…")');
    await page.waitForSelector("h1:has-text('Sessions')");
    expect((await session(doomed.id)).status).toBe(404);
    expect(
      (await api<{ results: unknown[] }>("/v1/search?q=pelicans")).body.results,
    ).toEqual([]);
    expect(
      await page.locator(`tr[data-session-id="${doomed.id}"]`).count(),
    ).toBe(0);
  });
});
