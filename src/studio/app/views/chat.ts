/**
 * The conversation of one leaf as chat. Each message at a branch point carries a sibling switcher
 * (← 2/3 →) that shows the chosen sibling's branch. Browsing is read-only: another branch shows
 * under a banner, and only its **Make this branch active** button moves the stored active leaf
 * (PUT /leaf), since an agent's next append continues whatever leaf is active. Overlays show as
 * summaries with their provenance; they expand to the messages they replace and can be undone
 * (DELETE compaction).
 */
import { onEvent } from "../events.js";
import { api } from "../api.js";
import type { Compaction, Message } from "../api-types.js";
import { h, replace } from "../dom.js";
import { formatDate, formatNumber } from "../format.js";
import { navigate, sessionHref } from "../router.js";
import type { TreeModel } from "../tree-model.js";
import { renderParts } from "./message-parts.js";

const SUMMARY_PREFIX = "compaction_";
const MAX_EXPANDED = 500;
/** Above this many messages the list lets the browser skip off-screen rendering (styles). */
const LONG_PATH = 200;
/** Overlays the reader opened, kept open when a live update rebuilds the view. */
const expandedOverlays = new Set<string>();

/** What the chat view shows and can do. */
export interface ChatOptions {
  sessionId: string;
  model: TreeModel;
  messages: Message[];
  /** The leaf shown; differs from the model's active leaf when browsing another branch. */
  leafId: string | null;
  /** A message to scroll to and mark (from the graph or a search result). */
  focusId: string | null;
  /** Re-renders the page after a write. */
  reload: () => void;
  report: (error: unknown) => void;
}

/** Collapses every overlay again: a visit starts from the default view, a live update does not. */
export function forgetExpandedOverlays(): void {
  expandedOverlays.clear();
}

/**
 * The address that shows a message in its branch without changing anything: the active branch
 * when the message is on it, else the latest leaf below it (as `leaf`, which brings the banner).
 */
export function branchHref(
  sessionId: string,
  model: TreeModel,
  messageId: string,
): string {
  const leaf = model.leafFor(messageId);
  return sessionHref(sessionId, "chat", {
    leaf: leaf === model.activeLeafId ? null : leaf,
    focus: messageId,
  });
}

/** Builds the conversation view. */
export function chatView(options: ChatOptions): HTMLElement {
  const { model, sessionId } = options;
  const list = h("ol", {
    class: options.messages.length > LONG_PATH ? "chat long" : "chat",
    "aria-label": "Conversation",
  });
  for (const message of options.messages) {
    const overlay = message.id.startsWith(SUMMARY_PREFIX)
      ? model.compactions.find((c) => SUMMARY_PREFIX + c.id === message.id)
      : undefined;
    list.append(
      overlay
        ? overlayCard(overlay, message, options)
        : messageItem(message, options),
    );
  }
  const viewingOther =
    options.leafId !== null && options.leafId !== model.activeLeafId;
  const banner = viewingOther
    ? h(
        "div",
        { class: "banner", role: "status" },
        "This is not the active branch. ",
        h(
          "button",
          {
            type: "button",
            onclick: () => {
              api
                .setLeaf(sessionId, options.leafId!)
                .then(() =>
                  navigate(
                    sessionHref(sessionId, "chat", { focus: options.focusId }),
                  ),
                )
                .catch(options.report);
            },
          },
          "Make this branch active",
        ),
      )
    : null;
  const empty =
    options.messages.length === 0
      ? h("p", { class: "muted" }, "This session has no messages yet.")
      : null;
  const view = h("section", { class: "chat-view" }, banner, empty, list);
  if (options.focusId)
    requestAnimationFrame(() => void focusMessage(view, options));
  return view;
}

// --- Internal helpers ---

function messageItem(message: Message, options: ChatOptions): HTMLElement {
  return h(
    "li",
    {
      class: `message role-${message.role.replace(/[^a-z]/gi, "")}`,
      "data-message-id": message.id,
      tabindex: -1,
    },
    h(
      "header",
      {},
      h("span", { class: "role" }, message.role),
      h(
        "time",
        { datetime: message.createdAt ?? "" },
        formatDate(
          message.createdAt ?? options.model.nodes.get(message.id)?.createdAt,
        ),
      ),
      siblingSwitcher(message.id, options),
    ),
    h("div", { class: "parts" }, renderParts(message.parts)),
  );
}

function siblingSwitcher(id: string, options: ChatOptions): HTMLElement | null {
  const siblings = options.model.siblingsOf(id);
  if (siblings.length < 2) return null;
  const index = siblings.findIndex((sibling) => sibling.id === id);
  // Navigation only: the stored active leaf stays where it is (see the banner in chatView).
  const go = (target: number) => () => {
    const sibling = siblings[target];
    if (sibling)
      navigate(branchHref(options.sessionId, options.model, sibling.id));
  };
  return h(
    "nav",
    { class: "siblings", "aria-label": "Branches at this message" },
    h(
      "button",
      {
        type: "button",
        "aria-label": "Previous branch",
        disabled: index === 0,
        onclick: go(index - 1),
      },
      "←",
    ),
    h("span", { class: "sibling-count" }, `${index + 1}/${siblings.length}`),
    h(
      "button",
      {
        type: "button",
        "aria-label": "Next branch",
        disabled: index === siblings.length - 1,
        onclick: go(index + 1),
      },
      "→",
    ),
  );
}

function overlayCard(
  overlay: Compaction,
  message: Message,
  options: ChatOptions,
): HTMLElement {
  const covered = options.model.coveredBy(overlay);
  const meta = overlay.meta ?? {};
  const facts = [
    meta.summarizer ? `by ${meta.summarizer}` : null,
    meta.tokensBefore !== undefined || meta.tokensAfter !== undefined
      ? `${formatNumber(meta.tokensBefore)} → ${formatNumber(meta.tokensAfter)} tokens`
      : null,
    `${formatNumber(meta.coveredMessages ?? covered.length)} messages`,
    `compacted ${formatDate(overlay.createdAt)}`,
  ].filter(Boolean);
  const originals = h("ol", {
    class: "chat originals",
    hidden: true,
    "aria-label": "Original messages",
  });
  const expand = h(
    "button",
    { type: "button", "aria-expanded": "false" },
    `Show ${covered.length} original messages`,
  );
  expand.addEventListener("click", () => void toggle());
  const toggle = async () => {
    const opening = originals.hidden;
    if (opening) expandedOverlays.add(overlay.id);
    else expandedOverlays.delete(overlay.id);
    originals.hidden = !opening;
    expand.setAttribute("aria-expanded", String(opening));
    expand.textContent = opening
      ? "Hide original messages"
      : `Show ${covered.length} original messages`;
    if (opening && originals.childElementCount === 0) {
      replace(originals, h("li", { class: "muted" }, "Loading…"));
      try {
        const messages = await fetchAll(
          options.sessionId,
          covered.slice(0, MAX_EXPANDED),
        );
        replace(
          originals,
          messages.map((original) => messageItem(original, options)),
        );
      } catch (error) {
        options.report(error);
      }
    }
  };
  const undo = h(
    "button",
    {
      type: "button",
      class: "danger",
      onclick: onEvent(async () => {
        if (
          !confirm(
            "Undo this overlay? The original messages come back into the history.",
          )
        )
          return;
        try {
          await api.deleteCompaction(options.sessionId, overlay.id);
          options.reload();
        } catch (error) {
          options.report(error);
        }
      }),
    },
    "Undo overlay",
  );
  if (expandedOverlays.has(overlay.id)) void toggle();
  return h(
    "li",
    {
      class: "message overlay",
      "data-message-id": message.id,
      "data-overlay-id": overlay.id,
      tabindex: -1,
    },
    h(
      "header",
      {},
      h("span", { class: "role" }, "summary"),
      h("span", { class: "provenance" }, facts.join(" · ")),
    ),
    h("div", { class: "parts" }, renderParts(message.parts)),
    h("div", { class: "actions" }, expand, undo),
    originals,
  );
}

async function fetchAll(sessionId: string, ids: string[]): Promise<Message[]> {
  const messages: Message[] = new Array(ids.length);
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const index = next++;
      messages[index] = (await api.message(sessionId, ids[index]!)).message;
    }
  };
  await Promise.all(Array.from({ length: Math.min(6, ids.length) }, worker));
  return messages;
}

/** Scrolls to the focused message; one hidden inside an overlay opens that overlay first. */
async function focusMessage(
  view: HTMLElement,
  options: ChatOptions,
): Promise<void> {
  const selector = `[data-message-id="${CSS.escape(options.focusId!)}"]`;
  let target = view.querySelector<HTMLElement>(selector);
  if (!target) {
    const overlay = options.model.compactions.find((c) =>
      options.model.coveredBy(c).includes(options.focusId!),
    );
    const card =
      overlay &&
      view.querySelector(`[data-overlay-id="${CSS.escape(overlay.id)}"]`);
    const button = card?.querySelector<HTMLButtonElement>(".actions button");
    if (button) {
      if (card?.querySelector(".originals")?.hasAttribute("hidden"))
        button.click();
      for (let tries = 0; tries < 50 && !target; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        target = view.querySelector<HTMLElement>(selector);
      }
    }
  }
  if (!target) return;
  target.classList.add("focused");
  target.scrollIntoView({ block: "center" });
  target.focus({ preventScroll: true });
}
