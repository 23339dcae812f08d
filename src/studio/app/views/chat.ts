/**
 * The conversation of one leaf as a transcript. It opens at the newest message and loads older
 * ones (windowed history reads) as the reader scrolls up; only what is near the screen is drawn
 * (chat-window.ts), so a 10,000-message session costs what a screenful costs. A run of
 * tool-only messages shows as one collapsed line per run, injected context (an AGENTS.md, a
 * slash command's wrapper) as one collapsed line naming its kind; a subagent call links to the
 * subagent's own session.
 *
 * Each message at a branch point carries a sibling switcher (← 2/3 →) that shows the chosen
 * sibling's branch. Browsing is read-only: another branch shows under a banner that stays in view
 * (sticky), and only its **Make this branch active** button moves the stored active leaf (PUT
 * /leaf), since an agent's next append continues whatever leaf is active. **Continue from here**
 * on a message forks the path up to it into a new session. Overlays show as summaries with their
 * provenance; they expand to the messages they replace and can be undone (DELETE compaction).
 */
import { onEvent } from "../events.js";
import { api } from "../api.js";
import type { Compaction, Message } from "../api-types.js";
import { h, replace } from "../dom.js";
import { dangerButton } from "./danger-button.js";
import { formatDate, formatNumber } from "../format.js";
import { injectedContextKind, textLines } from "../injected-context.js";
import { navigate, sessionHref } from "../router.js";
import { TreeModel } from "../tree-model.js";
import { ChatWindow, type WindowItem } from "./chat-window.js";
import {
  isToolPart,
  renderParts,
  toolCall,
  type PartLinks,
} from "./message-parts.js";

const SUMMARY_PREFIX = "compaction_";
const MAX_EXPANDED = 500;
/** Content bytes of the first window (the newest messages) and of each older one. */
export const FIRST_WINDOW_BYTES = 48 * 1024;
const OLDER_WINDOW_BYTES = 96 * 1024;
/** Overlays the reader opened, kept open when a live update rebuilds the view. */
const expandedOverlays = new Set<string>();
/** The window on screen, so a live rebuild can put the reader back where they were. */
let mounted: {
  sessionId: string;
  leafId: string | null;
  transcript: ChatWindow<ChatItem>;
} | null = null;

/** What the chat view shows and can do. */
export interface ChatOptions {
  sessionId: string;
  model: TreeModel;
  /**
   * The whole tree when `model` is only a stand-in for the newest window's path (`pathModel`):
   * the view takes it when it arrives (switchers, overlays, the banner, older windows).
   */
  tree?: Promise<TreeModel>;
  /** The newest window of the path (`api.recent`); older windows load on scroll. */
  messages: Message[];
  /** True when older messages than `messages` exist (the window did not reach the root). */
  truncated: boolean;
  /**
   * The leaf shown; differs from the model's active leaf when browsing another branch. `null`
   * with a `tree` to come: the active leaf, which the tree names.
   */
  leafId: string | null;
  /** A message to scroll to and mark (from the graph or a search result). */
  focusId: string | null;
  /** A rebuild after a change: keep the reader's place rather than open at the end. */
  live: boolean;
  /** Links from tool calls to the subagent sessions they started. */
  links: PartLinks;
  /** Re-renders the page after a write. */
  reload: () => void;
  report: (error: unknown) => void;
}

/** One entry of the list. */
type ChatItem = WindowItem &
  (
    | { kind: "message"; message: Message }
    | { kind: "overlay"; message: Message; overlay: Compaction }
    | { kind: "tools"; messages: Message[] }
  );

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

/** The leaf the window before `messages` ends at, or `null` at the root. */
export function olderLeaf(
  model: TreeModel,
  messages: readonly Message[],
): string | null {
  const first = messages[0];
  if (!first) return null;
  const overlay = first.id.startsWith(SUMMARY_PREFIX)
    ? model.compactions.find((c) => SUMMARY_PREFIX + c.id === first.id)
    : undefined;
  const raw = overlay ? overlay.fromMessageId : first.id;
  return model.nodes.get(raw)?.parentId ?? null;
}

/**
 * A stand-in for the tree built from one window of a path, until the tree is read: each stored
 * message the child of the one before, no branches and no overlays, the leaf (`leafId`, else the
 * window's last message) taken as the active one so no banner shows before the tree can say.
 */
export function pathModel(
  messages: readonly Message[],
  leafId: string | null,
): TreeModel {
  const stored = messages.filter((m) => !m.id.startsWith(SUMMARY_PREFIX));
  return new TreeModel({
    nodes: stored.map((message, index) => ({
      id: message.id,
      parentId: stored[index - 1]?.id ?? null,
      role: message.role,
      createdAt: message.createdAt ?? "",
      preview: "",
    })),
    activeLeafId: leafId ?? stored.at(-1)?.id ?? null,
    compactions: [],
  });
}

/** True for a message made only of tool calls (and step markers). */
export function isToolOnly(message: Message): boolean {
  return (
    message.parts.some(isToolPart) &&
    message.parts.every(
      (part) => isToolPart(part) || part.type === "step-start",
    )
  );
}

/** Builds the conversation view. */
export function chatView(given: ChatOptions): HTMLElement {
  // A copy: its model and leaf change when the tree arrives behind the first window.
  const options = { ...given };
  const { sessionId } = options;
  let oldest = options.messages;
  /** Every message the list holds, to rebuild its items when the tree arrives. */
  let loaded = options.messages;
  const loadOlder = async (): Promise<ChatItem[]> => {
    // Where the older window ends is the tree's to say.
    if (given.tree) await given.tree;
    const leaf = olderLeaf(options.model, oldest);
    if (leaf === null) return [];
    const { messages } = await api.recent(sessionId, OLDER_WINDOW_BYTES, leaf);
    if (messages.length === 0) return [];
    oldest = messages;
    loaded = [...messages, ...loaded];
    return itemsOf(messages, options);
  };
  const transcript = new ChatWindow<ChatItem>(
    {
      items: itemsOf(options.messages, options),
      render: (item) => renderItem(item, options),
      loadOlder: options.truncated ? loadOlder : undefined,
    },
    "Conversation",
  );
  // Sticky: the action stays in view wherever the reader is in a long branch, not only at its top.
  const bannerOf = () =>
    options.leafId !== null && options.leafId !== options.model.activeLeafId
      ? h(
          "div",
          { class: "banner off-branch", role: "status" },
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
                      sessionHref(sessionId, "chat", {
                        focus: options.focusId,
                      }),
                    ),
                  )
                  .catch(options.report);
              },
            },
            "Make this branch active",
          ),
        )
      : null;
  const banner = bannerOf();
  const empty =
    options.messages.length === 0
      ? h("p", { class: "muted" }, "This session has no messages yet.")
      : null;
  const view = h(
    "section",
    { class: "chat-view", "data-own-scroll": "" },
    banner,
    empty,
    transcript.olderButton,
    transcript.element,
  );
  // Where to start: the focused message, else (after a live change) where the reader was, else the end.
  const previous =
    options.live &&
    mounted?.sessionId === sessionId &&
    mounted.leafId === options.leafId
      ? mounted.transcript
      : null;
  const place = previous && !previous.atEnd() ? previous.anchorMessage() : null;
  mounted?.transcript.stop();
  const current = (mounted = { sessionId, leafId: options.leafId, transcript });
  given.tree?.then(
    (model) => {
      options.model = model;
      options.leafId ??= model.activeLeafId;
      current.leafId = options.leafId;
      const banner = bannerOf();
      if (banner) view.prepend(banner);
      transcript.replaceItems(itemsOf(loaded, options));
    },
    () => undefined, // the page reports it
  );
  requestAnimationFrame(
    onEvent(async () => {
      if (!view.isConnected) return transcript.stop();
      if (options.focusId && !options.live) {
        await focusMessage(transcript, options);
      } else if (place) {
        const element = await transcript.start({ messageId: place.messageId });
        if (element)
          scrollBy(0, element.getBoundingClientRect().top - place.top);
      } else await transcript.start("end");
    }),
  );
  return view;
}

// --- Internal helpers ---

/** Messages as list items: overlays as cards, runs of tool-only messages as one item. */
function itemsOf(
  messages: readonly Message[],
  options: ChatOptions,
): ChatItem[] {
  const items: ChatItem[] = [];
  let run: Message[] = [];
  const flush = () => {
    if (run.length === 1)
      items.push({
        kind: "message",
        message: run[0]!,
        key: run[0]!.id,
        ids: [run[0]!.id],
      });
    else if (run.length > 1)
      items.push({
        kind: "tools",
        messages: run,
        key: `tools:${run[0]!.id}:${run.length}`,
        ids: run.map((message) => message.id),
      });
    run = [];
  };
  for (const message of messages) {
    const overlay = message.id.startsWith(SUMMARY_PREFIX)
      ? options.model.compactions.find(
          (c) => SUMMARY_PREFIX + c.id === message.id,
        )
      : undefined;
    // A message at a branch point stays on its own, so its switcher is always in sight.
    if (
      !overlay &&
      isToolOnly(message) &&
      options.model.siblingsOf(message.id).length < 2
    ) {
      run.push(message);
      continue;
    }
    flush();
    items.push(
      overlay
        ? {
            kind: "overlay",
            message,
            overlay,
            key: message.id,
            ids: [message.id, ...options.model.coveredBy(overlay)],
          }
        : { kind: "message", message, key: message.id, ids: [message.id] },
    );
  }
  flush();
  return items;
}

function renderItem(item: ChatItem, options: ChatOptions): HTMLElement {
  if (item.kind === "overlay")
    return overlayCard(item.overlay, item.message, options);
  if (item.kind === "message") return messageItem(item.message, options);
  return toolRun(item.messages, options);
}

/** A run of tool-only messages: one line naming the calls, open to the messages. */
function toolRun(messages: Message[], options: ChatOptions): HTMLElement {
  const calls = messages.flatMap((message) =>
    message.parts.filter(isToolPart).map(toolCall),
  );
  const counts = new Map<string, number>();
  for (const call of calls)
    counts.set(call.name, (counts.get(call.name) ?? 0) + 1);
  const failed = calls.filter((call) => call.status === "error").length;
  const names = [...counts]
    .map(([name, count]) => (count > 1 ? `${name} ×${count}` : name))
    .join(", ");
  const body = h("ol", { class: "chat tool-run-messages" });
  const details = h(
    "details",
    { class: "tool-run-details" },
    h(
      "summary",
      {},
      h("span", { class: "tool-badge" }, "tools"),
      ` ${calls.length} tool calls: ${names}`,
      failed > 0
        ? h("span", { class: "tool-state failed" }, ` · ${failed} failed`)
        : null,
      timeOf(messages[0]!, options),
    ),
    body,
  );
  details.addEventListener("toggle", () => {
    if (details.open && body.childElementCount === 0)
      replace(
        body,
        // One speaker line per stretch of one role, not one per call.
        messages.map((message, index) =>
          messageItem(
            message,
            options,
            messages[index - 1]?.role === message.role,
          ),
        ),
      );
  });
  return h(
    "li",
    {
      class: "message tool-run role-assistant",
      "data-message-ids": messages.map((message) => message.id).join(" "),
      tabindex: -1,
    },
    details,
  );
}

/** A message; `continued` (the same speaker as the message before, in a run) leaves out the role. */
function messageItem(
  message: Message,
  options: ChatOptions,
  continued = false,
): HTMLElement {
  return h(
    "li",
    {
      class: `message role-${message.role.replace(/[^a-z]/gi, "")}${continued ? " continued" : ""}`,
      "data-message-id": message.id,
      tabindex: -1,
    },
    h(
      "header",
      {},
      continued ? null : h("span", { class: "role" }, message.role),
      timeOf(message, options),
      partialMark(message),
      siblingSwitcher(message.id, options),
      forkButton(message, options),
    ),
    injectedContext(message, options) ??
      h("div", { class: "parts" }, renderParts(message.parts, options.links)),
  );
}

/**
 * "Continue from here": a new session holding the path up to this message (POST /fork), opened
 * at once; the session on screen is not changed. Only stored messages have it (not summaries).
 */
function forkButton(
  message: Message,
  options: ChatOptions,
): HTMLElement | null {
  if (!options.model.nodes.has(message.id)) return null;
  return h(
    "button",
    {
      type: "button",
      class: "fork",
      title: "Start a new session with the conversation up to this message",
      onclick: onEvent(async (event: MouseEvent) => {
        // One fork per click: a second click while the first is on its way would make two.
        const button = event.currentTarget as HTMLButtonElement;
        button.disabled = true;
        try {
          const fork = await api.forkSession(options.sessionId, message.id);
          navigate(sessionHref(fork.id));
        } catch (error) {
          button.disabled = false;
          options.report(error);
        }
      }),
    },
    "Continue from here",
  );
}

/**
 * Injected context folded: one line naming its kind and length, which opens to the message
 * whole (drawn on the first opening: a policy can run to hundreds of lines).
 */
function injectedContext(
  message: Message,
  options: ChatOptions,
): HTMLElement | null {
  const kind = injectedContextKind(message);
  if (kind === null) return null;
  const lines = textLines(message);
  const body = h("div", { class: "parts" });
  const details = h(
    "details",
    { class: "injected-context", "data-kind": kind },
    h(
      "summary",
      {},
      h("span", { class: "tool-badge" }, "context"),
      ` ${kind} · ${lines} line${lines === 1 ? "" : "s"}`,
    ),
    body,
  );
  details.addEventListener("toggle", () => {
    if (details.open && body.childElementCount === 0)
      replace(body, renderParts(message.parts, options.links));
  });
  return details;
}

/**
 * An answer cut short, as its metadata says: stopped by the user (the chat route), or interrupted
 * or still in progress when a ChatGPT export was made. The text shown is all there is.
 */
function partialMark(message: Message): HTMLElement | null {
  const metadata = message.metadata;
  if (typeof metadata !== "object" || metadata === null) return null;
  const { partial, stopped, partialReason } = metadata as Record<
    string,
    unknown
  >;
  if (partial !== true) return null;
  const why =
    stopped === true
      ? "stopped"
      : partialReason === "in_progress"
        ? "in progress"
        : partialReason === "interrupted"
          ? "interrupted"
          : "partial";
  return h(
    "span",
    { class: "partial-mark", title: "This answer was cut short" },
    why,
  );
}

/**
 * When a message was written (imported messages keep their conversation's times). A message
 * that does not carry its time takes the stored one from the tree: blank, not "unknown", while
 * the first window shows ahead of the tree (the items are rebuilt when it is in).
 */
function timeOf(message: Message, options: ChatOptions): HTMLElement {
  const at =
    message.createdAt ?? options.model.nodes.get(message.id)?.createdAt ?? "";
  return h("time", { datetime: at || null }, at === "" ? "" : formatDate(at));
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
  // A group, not a landmark: one per branch point, so landmarks would repeat one name.
  return h(
    "div",
    {
      class: "siblings",
      role: "group",
      "aria-label": "Branches at this message",
    },
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
          itemsOf(messages, options).map((item) => renderItem(item, options)),
        );
      } catch (error) {
        options.report(error);
      }
    }
  };
  const undo = dangerButton(
    "Undo overlay",
    "Undo this overlay? The original messages come back into the history.",
    async () => {
      await api.deleteCompaction(options.sessionId, overlay.id);
      options.reload();
    },
    options.report,
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
    h("div", { class: "parts" }, renderParts(message.parts, options.links)),
    h("div", { class: "actions" }, expand, undo),
    originals,
  );
}

async function fetchAll(sessionId: string, ids: string[]): Promise<Message[]> {
  const messages = new Array<Message>(ids.length);
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

/**
 * Draws the window around the focused message and marks it: a message inside a run of tool
 * calls opens the run, one hidden under an overlay opens the overlay.
 */
async function focusMessage(
  transcript: ChatWindow<ChatItem>,
  options: ChatOptions,
): Promise<void> {
  const focusId = options.focusId!;
  const item = await transcript.start({ messageId: focusId });
  if (!item) return transcript.start("end").then(() => undefined);
  const selector = `[data-message-id="${CSS.escape(focusId)}"]`;
  let target = item.matches(selector)
    ? item
    : item.querySelector<HTMLElement>(selector);
  if (!target && item.classList.contains("tool-run")) {
    const details = item.querySelector("details")!;
    details.open = true;
    details.dispatchEvent(new Event("toggle"));
    target = item.querySelector<HTMLElement>(selector);
  }
  if (!target && item.classList.contains("overlay")) {
    const button = item.querySelector<HTMLButtonElement>(".actions button");
    if (item.querySelector(".originals")?.hasAttribute("hidden"))
      button?.click();
    for (let tries = 0; tries < 50 && !target; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      target = item.querySelector<HTMLElement>(selector);
    }
  }
  target ??= item;
  target.classList.add("focused");
  target.scrollIntoView({ block: "center" });
  target.focus({ preventScroll: true });
}
