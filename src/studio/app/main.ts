/**
 * The Arbor studio: a browser for sessions, their trees, overlays, blocks and prompts, built on
 * the public HTTP API only. The shell owns the route, the live-update subscription, the import
 * panel and the error banner; each page is rebuilt from the API on navigation and on change.
 */
import {
  ApiError,
  onReachability,
  reach,
  reportReachable,
  UnreachableError,
} from "./api.js";
import { forgetKey, hasKey } from "./auth.js";
import { h, replace } from "./dom.js";
import { setUpImport } from "./import.js";
import { followSession } from "./live.js";
import { currentRoute, sessionsHref } from "./router.js";
import { forgetExpandedOverlays } from "./views/chat.js";
import { sessionPage } from "./views/session.js";
import { sessionsPage } from "./views/sessions.js";

const main = h("main", { id: "main", tabindex: -1 });
const alert = h("div", { class: "alert", role: "alert", hidden: true });
const importPanel = h("aside", {
  class: "import-panel",
  hidden: true,
  "aria-live": "polite",
});
const liveBadge = h(
  "span",
  { class: "live off", title: "Live updates" },
  "offline",
);
const signOut = h(
  "button",
  {
    type: "button",
    hidden: !hasKey(),
    onclick: () => (forgetKey(), location.reload()),
  },
  "Forget API key",
);

/** How often the studio asks whether an unreachable server is back. */
const RETRY_MS = 2000;

let renderCount = 0;
/** The address whose view `main` shows, so a failed visit never leaves another view under it. */
let shownHash: string | null = null;
let unreachable = false;
let retryTimer: ReturnType<typeof setTimeout> | undefined;
let followed: { id: string; stop: () => void } | null = null;
const chooseFile = setUpImport(importPanel, () => void render({ live: true }));

document.body.append(
  h(
    "a",
    {
      class: "skip",
      href: "#main",
      onclick: (event: MouseEvent) => (event.preventDefault(), main.focus()),
    },
    "Skip to content",
  ),
  h(
    "header",
    { class: "topbar" },
    h("a", { class: "brand", href: sessionsHref() }, "Arbor studio"),
    h(
      "nav",
      { "aria-label": "Studio" },
      h("a", { href: sessionsHref() }, "Sessions"),
      signOut,
    ),
  ),
  alert,
  main,
  importPanel,
  h(
    "div",
    { class: "drop-hint", "aria-hidden": "true" },
    "Drop the file to import it",
  ),
);
window.addEventListener("hashchange", () => void render({ live: false }));
onReachability((reachable) => {
  if (reachable === !unreachable) return;
  unreachable = !reachable;
  clearTimeout(retryTimer);
  if (unreachable) {
    retryTimer = setTimeout(probe, RETRY_MS);
    return;
  }
  // Back: the message about the outage goes, and the view catches up with what changed meanwhile.
  if (alert.dataset.kind === "unreachable") hideAlert();
  void render({ live: shownHash === location.hash });
});
void render({ live: false });

/** Builds the page for the current route; `live` keeps the scroll position (a refresh, not a visit). */
async function render({ live }: { live: boolean }): Promise<void> {
  const count = ++renderCount;
  const route = currentRoute();
  const atBottom =
    window.innerHeight + window.scrollY >= document.body.scrollHeight - 40;
  const scrollY = window.scrollY;
  follow(route.page === "session" ? route.id : null);
  if (!live) {
    hideAlert();
    forgetExpandedOverlays();
  }
  main.setAttribute("aria-busy", "true");
  // Busy until the page has all it loads (a conversation shows before its tree is in).
  let settled: Promise<void> = Promise.resolve();
  try {
    const reload = () => void render({ live: true });
    const built =
      route.page === "session"
        ? await sessionPage({
            ...route,
            reload,
            report,
            liveBadge,
            live,
            changesFollowed: liveBadge.classList.contains("on"),
          })
        : {
            element: await sessionsPage({
              params: route.params,
              chooseFile,
              report,
            }),
            settled,
          };
    if (count !== renderCount) return;
    const page = built.element;
    settled = built.settled.catch((error: unknown) => {
      if (count === renderCount) report(error);
    });
    replace(main, page);
    shownHash = location.hash;
    signOut.hidden = !hasKey();
    document.title = `${page.querySelector("h1")?.textContent ?? "Arbor"} · Arbor studio`;
    // The conversation puts the reader in place itself (it draws only what is near the screen).
    if (page.querySelector("[data-own-scroll]")) return;
    if (live)
      requestAnimationFrame(() =>
        window.scrollTo(0, atBottom ? document.body.scrollHeight : scrollY),
      );
    else if (!route.params.get("focus")) window.scrollTo(0, 0);
  } catch (error) {
    if (count !== renderCount) return;
    if (
      error instanceof ApiError &&
      error.status === 404 &&
      route.page === "session"
    ) {
      replace(
        main,
        h(
          "p",
          {},
          "This session does not exist (or is not yours). ",
          h("a", { href: sessionsHref() }, "All sessions"),
        ),
      );
    } else {
      report(error);
      // The address moved on: show that this view failed rather than keep the previous one.
      if (shownHash !== location.hash) {
        replace(
          main,
          h(
            "p",
            { class: "muted load-failed" },
            error instanceof UnreachableError
              ? "This view could not be loaded: the server cannot be reached. It loads as soon as the server answers."
              : "This view could not be loaded. ",
            error instanceof UnreachableError
              ? null
              : h(
                  "button",
                  {
                    type: "button",
                    onclick: () => void render({ live: false }),
                  },
                  "Try again",
                ),
          ),
        );
        shownHash = location.hash;
        if (route.page === "session") document.title = "Arbor studio";
      }
    }
  } finally {
    void settled.then(() => {
      if (count === renderCount) main.removeAttribute("aria-busy");
    });
  }
}

function follow(id: string | null): void {
  if (followed?.id === id) return;
  followed?.stop();
  followed = null;
  liveBadge.className = "live off";
  liveBadge.textContent = "offline";
  if (id === null) return;
  const stop = followSession(
    `/v1/sessions/${encodeURIComponent(id)}/events`,
    (changed) => {
      // Only the tabs that show what changed are rebuilt: a rebuild of the others would close
      // what the reader opened there (a block's history).
      const route = currentRoute();
      if (route.page !== "session") return;
      const shows =
        route.tab === "chat" || route.tab === "tree"
          ? changed.messages
          : route.tab === "blocks" || route.tab === "prompt"
            ? changed.blocks
            : route.tab === "context"
              ? changed.messages || changed.blocks
              : false;
      // A block being edited keeps its draft: Save writes it over whatever changed meanwhile.
      if (shows && !main.querySelector("[data-editing]"))
        void render({ live: true });
    },
    (connected) => {
      if (connected) reportReachable(true);
      liveBadge.className = connected ? "live on" : "live off";
      liveBadge.textContent = connected ? "live" : "offline";
    },
  );
  followed = { id, stop };
}

/** Asks the server whether it is back; `reach` reports the answer to the listeners. */
function probe(): void {
  reach("/health").then(
    () => undefined,
    () => undefined,
  );
  clearTimeout(retryTimer);
  if (unreachable) retryTimer = setTimeout(probe, RETRY_MS);
}

function report(error: unknown): void {
  const message =
    error instanceof ApiError
      ? `${error.message} (${error.code})`
      : error instanceof Error
        ? error.message
        : String(error);
  alert.dataset.kind =
    error instanceof UnreachableError ? "unreachable" : "error";
  replace(
    alert,
    h("span", {}, message),
    h(
      "button",
      { type: "button", "aria-label": "Dismiss", onclick: hideAlert },
      "×",
    ),
  );
  alert.hidden = false;
}

function hideAlert(): void {
  alert.hidden = true;
}
