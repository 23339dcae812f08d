/** A session page: its header (counts, tokens, times), the tabs, and the chosen tab's view. */
import { api, writeCount } from "../api.js";
import type { Message, SessionView } from "../api-types.js";
import { h, type Child } from "../dom.js";
import { formatDate, formatNumber, tokenUsage } from "../format.js";
import { navigate, sessionHref, type SessionTab } from "../router.js";
import { TreeModel } from "../tree-model.js";
import { blocksView } from "./blocks.js";
import { branchHref, chatView, FIRST_WINDOW_BYTES, pathModel } from "./chat.js";
import { contextView } from "./context.js";
import { graphView } from "./graph.js";
import { promptView } from "./prompt.js";
import { searchView } from "./search.js";
import { sessionActions } from "./session-actions.js";
import { subagentLinks } from "./subagents.js";

const TAB_TITLES: ReadonlyArray<[SessionTab, string]> = [
  ["chat", "Conversation"],
  ["tree", "Tree"],
  ["blocks", "Blocks"],
  ["prompt", "Prompt"],
  ["context", "Context"],
  ["search", "Search"],
];

/** What a session page needs from the shell. */
export interface SessionPageOptions {
  id: string;
  tab: SessionTab;
  params: URLSearchParams;
  reload: () => void;
  report: (error: unknown) => void;
  /** A rebuild after a change (not a visit): views keep the reader's place. */
  live: boolean;
  /**
   * True while the session's change feed is connected: then nothing changed since the last
   * read that the feed did not announce (an announced change rebuilds with `live`), and a visit
   * to another tab or branch can reuse the tree it read.
   */
  changesFollowed: boolean;
  /** The live-updates indicator, owned by the shell so it survives re-renders. */
  liveBadge: HTMLElement;
}

/** A built page, and when what it still loads (the whole tree, behind a first window) is in. */
export interface BuiltPage {
  element: HTMLElement;
  settled: Promise<void>;
}

/**
 * Loads what the tab shows and builds the page. A visit to the conversation shows its newest
 * window as soon as that window is read: the tree (2 MB at 10,000 messages) loads behind it,
 * and the branch switchers, overlays and older windows that need it follow when it is in.
 */
export async function sessionPage(
  options: SessionPageOptions,
): Promise<BuiltPage> {
  const { id } = options;
  // Browsing branches (the switcher, the graph, a search hit) reuses the tree just read; a
  // visit to a tab, a refresh and a change read it again.
  const browsing =
    options.tab === "chat" &&
    (options.params.has("leaf") || options.params.has("focus"));
  const reuse =
    browsing &&
    !options.live &&
    options.changesFollowed &&
    cached?.id === id &&
    cached.writes === writeCount() &&
    Date.now() - cached.at < REUSE_MS
      ? cached
      : null;
  // The conversation's newest window does not need the tree when the leaf is in the address
  // (or is the active one): it loads alongside.
  const window =
    options.tab === "chat" && !options.params.get("focus")
      ? recentWindow(id, options.params.get("leaf"))
      : null;
  window?.catch(() => undefined);
  // A live rebuild keeps waiting for the tree: it must not drop the switchers already shown.
  const early = window !== null && !reuse && !options.live;
  const infoRead = reuse ? Promise.resolve(reuse.info) : api.getSession(id);
  // When the window shows first, the tree is asked for once the page holding the window has
  // been drawn: the server builds the 2 MB tree of a long session in the same process, and the
  // browser parses it and models it on the same thread that draws, so asked together the tree
  // held back the first message (under load, 2.5 to 4 s against 1.9 s for the build that waited
  // for the whole tree), and asked as the page was built it still finished first in 2 of 5 runs.
  let askForTree = (): void => undefined;
  const treeAsked = early
    ? new Promise<void>((resolve) => (askForTree = resolve))
    : Promise.resolve();
  const treeRead = reuse
    ? Promise.resolve(reuse.model)
    : treeAsked.then(() => api.tree(id)).then((tree) => new TreeModel(tree));
  treeRead.catch(() => undefined);
  const writes = writeCount();
  if (!reuse)
    void Promise.all([infoRead, treeRead]).then(
      ([info, model]) => (cached = { id, info, model, writes, at: Date.now() }),
      () => undefined,
    );
  // A failed window or session read still asks for the tree (the view reports the failure).
  const info = await infoRead.catch((error: unknown) => {
    askForTree();
    throw error;
  });
  const model = early ? null : await treeRead;
  const body = await tabBody(options, model ?? treeRead, window).finally(
    early ? () => afterFirstPaint(askForTree) : askForTree,
  );
  const element = h(
    "section",
    { class: "session-page" },
    header(info, model ?? treeRead, options),
    h(
      "nav",
      { class: "tabs", "aria-label": "Session views" },
      TAB_TITLES.map(([tab, title]) =>
        h(
          "a",
          {
            href: sessionHref(id, tab),
            "aria-current": tab === options.tab ? "page" : null,
          },
          title,
        ),
      ),
    ),
    body,
  );
  return { element, settled: treeRead.then(() => undefined) };
}

// --- Internal helpers ---

/**
 * Runs `then` once the page built now has been drawn: a frame callback runs just before the
 * next paint and a task queued from it runs after that paint. A hidden tab draws no frames, so
 * a timer stands in (whichever comes first runs `then`, once).
 */
function afterFirstPaint(then: () => void): void {
  let done = false;
  const once = (): void => {
    if (done) return;
    done = true;
    then();
  };
  requestAnimationFrame(() => setTimeout(once, 0));
  setTimeout(once, PAINT_FALLBACK_MS);
}
/** How long a page that draws no frame (a hidden tab) waits before asking for the tree. */
const PAINT_FALLBACK_MS = 250;

/** The last session read, kept for visits while its change feed is connected. */
let cached: {
  id: string;
  info: SessionView;
  model: TreeModel;
  /** `writeCount()` when read: the studio's own writes (a leaf switch) do not always announce themselves. */
  writes: number;
  at: number;
} | null = null;
/** How long a read tree serves branch browsing (writes elsewhere that the feed does not announce). */
const REUSE_MS = 60_000;

function recentWindow(
  id: string,
  leafId: string | null,
): Promise<{ messages: Message[]; truncated: boolean }> {
  return leafId === null
    ? api.recent(id, FIRST_WINDOW_BYTES)
    : api.recent(id, FIRST_WINDOW_BYTES, leafId);
}

/** The tab's view; `tree` is a promise when the view may show before the tree is read. */
async function tabBody(
  options: SessionPageOptions,
  tree: TreeModel | Promise<TreeModel>,
  window: Promise<{ messages: Message[]; truncated: boolean }> | null,
): Promise<HTMLElement> {
  const { id, params, reload, report } = options;
  if (tree instanceof Promise && options.tab === "chat" && window) {
    // The newest window first, on a stand-in of its path; the view takes the tree when it is in.
    const { messages, truncated } = await window;
    const leafId = params.get("leaf");
    const links = await subagentLinks(id, messages).catch((error: unknown) => {
      report(error);
      return {};
    });
    return chatView({
      sessionId: id,
      model: pathModel(messages, leafId),
      tree,
      messages,
      truncated,
      leafId,
      focusId: null,
      live: options.live,
      links,
      reload,
      report,
    });
  }
  const model = await tree;
  switch (options.tab) {
    case "chat": {
      const focusId = params.get("focus");
      const leafId =
        params.get("leaf") ??
        (focusId && model.nodes.has(focusId)
          ? model.leafFor(focusId)
          : model.activeLeafId);
      // The newest window only; the view loads older ones as the reader scrolls up.
      const { messages, truncated } =
        leafId === null
          ? { messages: [], truncated: false }
          : await (window ?? recentWindow(id, leafId));
      const links = await subagentLinks(id, messages).catch(
        (error: unknown) => {
          report(error);
          return {};
        },
      );
      return chatView({
        sessionId: id,
        model,
        messages,
        truncated,
        leafId,
        focusId,
        live: options.live,
        links,
        reload,
        report,
      });
    }
    case "tree":
      return graphView({
        model,
        activeLeafId: model.activeLeafId,
        open: (nodeId) => navigate(branchHref(id, model, nodeId)),
      });
    case "blocks":
      return blocksView({
        sessionId: id,
        blocks: (await api.blocks(id)).blocks,
        reload,
        report,
      });
    case "prompt":
      return promptView({
        sessionId: id,
        answer: await api.prompt(id),
        reload,
        report,
      });
    case "context":
      return contextView({ sessionId: id, model, params, report });
    case "search":
      return searchView({
        label: "Search this session",
        initialQuery: params.get("q") ?? "",
        run: async (q) => (await api.searchSession(id, q)).results,
        remember: (q) =>
          history.replaceState(null, "", sessionHref(id, "search", { q })),
        fallbackSessionId: id,
        branchOf: model.branchNamer(),
        report,
      });
  }
}

function header(
  info: SessionView,
  tree: TreeModel | Promise<TreeModel>,
  options: SessionPageOptions,
): HTMLElement {
  const imported = info.metadata?.["import.format"];
  // Counted from the tree, which may still be on its way.
  const branchPoints = h("span", {}, "…");
  const count = (model: TreeModel) =>
    (branchPoints.textContent = formatNumber(model.branchPointCount()));
  if (tree instanceof Promise) void tree.then(count, () => undefined);
  else count(tree);
  const facts: Array<[string, Child]> = [
    ["Messages", formatNumber(info.messageCount)],
    ["Branch points", branchPoints],
    ["Tokens in / out", tokenUsage(info)],
    // An import keeps the conversation's own times: when it was held, not when it was imported.
    [imported ? "Started" : "Created", formatDate(info.created_at)],
    [imported ? "Last message" : "Updated", formatDate(info.updated_at)],
  ];
  if (imported) facts.push(["Imported from", importedFrom(info)]);
  if (info.parent_session_id)
    facts.push([
      "Started by",
      h(
        "a",
        { href: sessionHref(info.parent_session_id) },
        "the parent session",
      ),
    ]);
  if (info.ownerId) facts.push(["Owner", info.ownerId]);
  if (info.model) facts.push(["Model", info.model]);
  const title = h("h1", {}, info.name || info.id);
  return h(
    "header",
    { class: "session-header" },
    h(
      "div",
      { class: "page-title" },
      title,
      h(
        "div",
        { class: "actions" },
        options.liveBadge,
        h(
          "button",
          {
            type: "button",
            onclick: options.reload,
            "aria-label": "Refresh this session",
          },
          "↻ Refresh",
        ),
        sessionActions({
          info,
          title,
          leafId: options.params.get("leaf"),
          reload: options.reload,
          report: options.report,
        }),
      ),
    ),
    h(
      "dl",
      { class: "facts" },
      facts.map(([term, value]) =>
        h("div", {}, h("dt", {}, term), h("dd", {}, value)),
      ),
    ),
  );
}

/** Where an imported session came from: the tool and the file. */
function importedFrom(info: SessionView): string {
  const format = info.metadata?.["import.format"] ?? "";
  const file = info.metadata?.["import.fileName"];
  return file ? `${format} (${file})` : format;
}
