/** The sessions list: search across sessions, owner filter, cursor pagination, and the empty state. */
import { api } from "../api.js";
import type { SessionView } from "../api-types.js";
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
  const page = await api.listSessions({
    limit: PAGE_SIZE,
    cursor: cursor || undefined,
    owner: owner || undefined,
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
      : sessionTable(page.sessions);
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

function sessionTable(sessions: SessionView[]): HTMLElement {
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
      sessions.map((session) =>
        h(
          "tr",
          { "data-session-id": session.id },
          h(
            "td",
            { "data-label": "Name" },
            h(
              "a",
              { href: sessionHref(session.id) },
              session.name || session.id,
            ),
          ),
          h("td", { "data-label": "Owner" }, session.ownerId ?? "—"),
          h(
            "td",
            { "data-label": "Messages", class: "number" },
            formatNumber(session.messageCount),
          ),
          h(
            "td",
            { "data-label": "Tokens", class: "number" },
            tokenUsage(session),
          ),
          h("td", { "data-label": "Created" }, formatDate(session.created_at)),
          h("td", { "data-label": "Updated" }, formatDate(session.updated_at)),
        ),
      ),
    ),
  );
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
