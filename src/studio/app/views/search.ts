/** Search within a session or across sessions: matches highlighted, each hit opens its message in its branch. */
import type { SearchHit } from "../api-types.js";
import { h, highlighted, replace } from "../dom.js";
import { formatDate } from "../format.js";
import { sessionHref } from "../router.js";

/** What a search box runs, and how a hit's session is named. */
export interface SearchOptions {
  label: string;
  initialQuery: string;
  run: (query: string) => Promise<SearchHit[]>;
  /** Called with the query when it changes, to keep it in the address. */
  remember?: (query: string) => void;
  sessionName?: (id: string) => string | undefined;
  /** The branch a hit is on, in words (a session's search, which has its tree). */
  branchOf?: (id: string) => string | null;
  fallbackSessionId?: string;
  report: (error: unknown) => void;
}

/** A search form and its results list. */
export function searchView(options: SearchOptions): HTMLElement {
  const input = h("input", {
    type: "search",
    name: "q",
    value: options.initialQuery,
    placeholder: "Search messages…",
    "aria-label": options.label,
  });
  const results = h("div", { class: "search-results", "aria-live": "polite" });
  const run = async (query: string) => {
    if (!query.trim()) {
      replace(results);
      return;
    }
    replace(results, h("p", { class: "muted" }, "Searching…"));
    try {
      const hits = await options.run(query.trim());
      replace(results, renderHits(hits, query.trim(), options));
    } catch (error) {
      replace(results);
      options.report(error);
    }
  };
  const form = h(
    "form",
    {
      class: "search-form",
      role: "search",
      onsubmit: (event: SubmitEvent) => {
        event.preventDefault();
        options.remember?.(input.value.trim());
        void run(input.value);
      },
    },
    input,
    h("button", { type: "submit" }, "Search"),
  );
  if (options.initialQuery) void run(options.initialQuery);
  return h("section", { class: "search-view" }, form, results);
}

// --- Internal helpers ---

function renderHits(
  hits: SearchHit[],
  query: string,
  options: SearchOptions,
): HTMLElement {
  if (hits.length === 0)
    return h("p", { class: "muted" }, `No messages match “${query}”.`);
  return h(
    "ol",
    { class: "hits" },
    hits.map((hit) => {
      const sessionId = hit.sessionId ?? options.fallbackSessionId ?? "";
      const name = hit.sessionId
        ? (options.sessionName?.(hit.sessionId) ?? hit.sessionId)
        : null;
      const branch = options.branchOf?.(hit.id) ?? null;
      return h(
        "li",
        {},
        h(
          "a",
          {
            class: "hit",
            href: sessionHref(sessionId, "chat", { focus: hit.id }),
          },
          h(
            "span",
            { class: "hit-meta" },
            name ? h("strong", {}, name) : null,
            name ? " · " : "",
            hit.role,
            " · ",
            formatDate(hit.createdAt),
            branch ? h("span", { class: "hit-branch" }, ` · ${branch}`) : null,
          ),
          h(
            "span",
            { class: "hit-text" },
            highlighted(excerpt(hit.content, query), query),
          ),
        ),
      );
    }),
  );
}

/** Up to ~240 characters around the first match. */
function excerpt(text: string, query: string): string {
  const first = query.split(/\s+/)[0]?.toLowerCase() ?? "";
  const at = first ? text.toLowerCase().indexOf(first) : -1;
  if (text.length <= 240) return text;
  const start = Math.max(0, at - 80);
  return (
    (start > 0 ? "…" : "") +
    text.slice(start, start + 240) +
    (start + 240 < text.length ? "…" : "")
  );
}
