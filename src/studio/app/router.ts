/** Hash routes, so a view is a link that survives a reload and needs no server-side routing. */

/** The tabs of a session page. */
export type SessionTab =
  "chat" | "tree" | "blocks" | "prompt" | "context" | "search";

/** Where the studio is. */
export type Route =
  | { page: "sessions"; params: URLSearchParams }
  | { page: "session"; id: string; tab: SessionTab; params: URLSearchParams };

const TABS: readonly SessionTab[] = [
  "chat",
  "tree",
  "blocks",
  "prompt",
  "context",
  "search",
];

/** Reads the current location hash. */
export function currentRoute(): Route {
  const hash = location.hash.replace(/^#/, "");
  const [path = "", search = ""] = hash.split("?", 2);
  const params = new URLSearchParams(search);
  const match = /^\/s\/([^/]+)(?:\/([a-z]+))?$/.exec(path);
  if (match) {
    const tab = TABS.find((candidate) => candidate === match[2]) ?? "chat";
    return { page: "session", id: decodeURIComponent(match[1]!), tab, params };
  }
  return { page: "sessions", params };
}

/** The hash of a session tab, with optional query parameters. */
export function sessionHref(
  id: string,
  tab: SessionTab = "chat",
  params: Record<string, string | null | undefined> = {},
): string {
  return `#/s/${encodeURIComponent(id)}/${tab}${queryOf(params)}`;
}

/** The hash of the sessions list. */
export function sessionsHref(
  params: Record<string, string | null | undefined> = {},
): string {
  return `#/${queryOf(params)}`;
}

/** Goes to a hash (a no-op when already there). */
export function navigate(href: string): void {
  if (location.hash === href)
    window.dispatchEvent(new HashChangeEvent("hashchange"));
  else location.hash = href;
}

// --- Internal helpers ---

function queryOf(params: Record<string, string | null | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    if (value) search.set(key, value);
  const text = search.toString();
  return text ? "?" + text : "";
}
