/** The sessions list: search across sessions, owner filter, cursor pagination, and the empty state. */
import { api } from "../api.js";
import type { SessionListItem } from "../api-types.js";
import { h } from "../dom.js";
import { formatDate, formatNumber, tokenUsage } from "../format.js";
import { navigate, sessionHref, sessionsHref } from "../router.js";
import { searchView } from "./search.js";

const PAGE_SIZE = 25;
/** Cursors of the pages before the current one, for "Previous" (cursors only go forward). */
const previousCursors: string[] = [];

/** What the list page needs. */
export interface SessionsOptions {
  params: URLSearchParams;
  chooseFile: () => void;
  report: (error: unknown) => void;
}

/** Loads a page of sessions and builds the list page. */
export async function sessionsPage(
  options: SessionsOptions,
): Promise<HTMLElement> {
  const owner = options.params.get("owner") ?? "";
  const cursor = options.params.get("cursor") ?? "";
  const query = options.params.get("q") ?? "";
  // The top level only: the sessions a session started nest under it (one page of them each).
  const page = await api.listSessions({
    limit: PAGE_SIZE,
    cursor: cursor || undefined,
    owner: owner || undefined,
    parent: "none",
  });
  const names = new Map(
    page.sessions.map((session) => [session.id, session.name]),
  );
  if (!cursor) previousCursors.length = 0;

  const ownerInput = h("input", {
    type: "text",
    name: "owner",
    value: owner,
    placeholder: "any owner",
    "aria-label": "Owner",
  });
  const filter = h(
    "form",
    {
      class: "owner-filter",
      onsubmit: (event: SubmitEvent) => {
        event.preventDefault();
        previousCursors.length = 0;
        navigate(sessionsHref({ owner: ownerInput.value.trim(), q: query }));
      },
    },
    h("label", {}, "Owner ", ownerInput),
    h("button", { type: "submit" }, "Filter"),
  );
  const search = searchView({
    label: "Search all sessions",
    initialQuery: query,
    run: async (q) => (await api.searchAll(q)).results,
    remember: (q) =>
      history.replaceState(null, "", sessionsHref({ owner, cursor, q })),
    sessionName: (id) => names.get(id),
    report: options.report,
  });

  const empty = page.sessions.length === 0 && !owner && !cursor;
  const body = empty
    ? emptyState(options.chooseFile)
    : page.sessions.length === 0
      ? h("p", { class: "muted" }, "No sessions match this filter.")
      : sessionTable(page.sessions, { owner, report: options.report });
  const pager = h(
    "nav",
    { class: "pager", "aria-label": "Pages" },
    h(
      "button",
      {
        type: "button",
        disabled: !cursor,
        onclick: () =>
          navigate(
            sessionsHref({ owner, cursor: previousCursors.pop() ?? "" }),
          ),
      },
      "← Previous",
    ),
    h(
      "button",
      {
        type: "button",
        disabled: !page.nextCursor,
        onclick: () => {
          previousCursors.push(cursor);
          navigate(sessionsHref({ owner, cursor: page.nextCursor ?? "" }));
        },
      },
      "Next →",
    ),
  );
  return h(
    "section",
    { class: "sessions-page" },
    h(
      "div",
      { class: "page-title" },
      h("h1", {}, "Sessions"),
      h(
        "div",
        { class: "actions" },
        h(
          "button",
          { type: "button", onclick: options.chooseFile },
          "Import a file…",
        ),
        h(
          "button",
          {
            type: "button",
            "aria-label": "Refresh the list",
            onclick: () => navigate(location.hash || sessionsHref()),
          },
          "↻ Refresh",
        ),
      ),
    ),
    h("div", { class: "toolbar" }, search, filter),
    body,
    empty ? null : pager,
  );
}

// --- Internal helpers ---

/** What the rows need to load the sessions a session started. */
interface RowOptions {
  owner: string;
  report: (error: unknown) => void;
}

function sessionTable(
  sessions: SessionListItem[],
  options: RowOptions,
): HTMLElement {
  return h(
    "table",
    { class: "sessions" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        [
          "Name",
          "Owner",
          "Messages",
          "Tokens in / out",
          "Created",
          "Updated",
        ].map((title) => h("th", { scope: "col" }, title)),
      ),
    ),
    h(
      "tbody",
      {},
      sessions.map((session) => sessionRow(session, 0, options)),
    ),
  );
}

/**
 * One session's row; one that started sessions (a fork, a subagent run) has a button that
 * lists them as rows below it, indented, a page at a time (`GET /v1/sessions?parent=<id>`).
 */
function sessionRow(
  session: SessionListItem,
  depth: number,
  options: RowOptions,
): HTMLTableRowElement {
  const shown: HTMLTableRowElement[] = [];
  /** How many times the children were opened: a page read for an earlier opening is dropped. */
  let openings = 0;
  const label = (open: boolean) =>
    `${open ? "▾" : "▸"} ${formatNumber(session.childCount)} started session${session.childCount === 1 ? "" : "s"}`;
  const toggle =
    session.childCount > 0
      ? h(
          "button",
          {
            type: "button",
            class: "children-toggle",
            "aria-expanded": "false",
          },
          label(false),
        )
      : null;
  const row = h(
    "tr",
    {
      "data-session-id": session.id,
      "data-parent-id": session.parent_session_id,
      class: depth > 0 ? "child-session" : null,
      style: depth > 0 ? `--depth:${depth}` : null,
    },
    h(
      "td",
      { "data-label": "Name" },
      h("a", { href: sessionHref(session.id) }, session.name || session.id),
      toggle,
    ),
    h("td", { "data-label": "Owner" }, session.ownerId ?? "—"),
    h(
      "td",
      { "data-label": "Messages", class: "number" },
      formatNumber(session.messageCount),
    ),
    h("td", { "data-label": "Tokens", class: "number" }, tokenUsage(session)),
    h("td", { "data-label": "Created" }, formatDate(session.created_at)),
    h("td", { "data-label": "Updated" }, formatDate(session.updated_at)),
  );
  collapsers.set(row, () => {
    for (const child of shown.splice(0)) {
      collapsers.get(child)?.();
      child.remove();
    }
  });
  /** Loads a page of the children and puts their rows after the last one shown. */
  const more = async (cursor?: string): Promise<void> => {
    const asOf = openings;
    const children = await api.listSessions({
      limit: CHILD_PAGE_SIZE,
      parent: session.id,
      cursor,
      owner: options.owner || undefined,
    });
    // Folded (or folded and opened again) while the page was on its way: nothing to show.
    if (asOf !== openings || toggle?.getAttribute("aria-expanded") !== "true")
      return;
    const rows = children.sessions.map((child) =>
      sessionRow(child, depth + 1, options),
    );
    if (children.nextCursor) {
      const next = children.nextCursor;
      const moreRow: HTMLTableRowElement = h(
        "tr",
        { class: "child-session more", style: `--depth:${depth + 1}` },
        h(
          "td",
          { colspan: 6 },
          h(
            "button",
            {
              type: "button",
              onclick: () => {
                shown.splice(shown.indexOf(moreRow), 1);
                moreRow.remove();
                more(next).catch(options.report);
              },
            },
            "More started sessions…",
          ),
        ),
      );
      rows.push(moreRow);
    }
    const after = shown.at(-1) ?? row;
    // Below the last row shown, itself after the rows of any child opened meanwhile.
    lastRowOf(after).after(...rows);
    shown.push(...rows);
  };
  toggle?.addEventListener("click", () => {
    const opening = toggle.getAttribute("aria-expanded") !== "true";
    toggle.setAttribute("aria-expanded", String(opening));
    toggle.textContent = label(opening);
    if (opening) {
      openings++;
      more().catch(options.report);
    } else collapsers.get(row)?.();
  });
  return row;
}

/** How each row with children folds them again (and theirs). */
const collapsers = new WeakMap<HTMLTableRowElement, () => void>();
const CHILD_PAGE_SIZE = 50;

/** The last row that belongs to `row`: itself, or the last of its opened children's rows. */
function lastRowOf(row: HTMLTableRowElement): HTMLTableRowElement {
  let last = row;
  const depthOf = (element: Element) =>
    Number((element as HTMLElement).style.getPropertyValue("--depth") || 0);
  const depth = depthOf(row);
  for (
    let next = row.nextElementSibling;
    next && depthOf(next) > depth;
    next = next.nextElementSibling
  )
    last = next as HTMLTableRowElement;
  return last;
}

function emptyState(chooseFile: () => void): HTMLElement {
  return h(
    "div",
    { class: "empty-state" },
    h("h2", {}, "No sessions yet"),
    h("p", {}, "Load the sample conversation from a terminal:"),
    h("pre", {}, "arbor import examples/sample/sample.arbor.jsonl"),
    h(
      "p",
      {},
      "Or drop an export on this page: an Arbor snapshot or tree JSONL, a ChatGPT conversations.json, OpenAI or AI SDK message arrays, a Pi or Claude Code session JSONL.",
    ),
    h(
      "button",
      { type: "button", class: "primary", onclick: chooseFile },
      "Choose a file to import…",
    ),
  );
}
