/**
 * The context window: what a turn would send the model at a leaf, as the server's `assembleContext`
 * computes it (GET …/context): the system prompt with each block's section, the history after
 * overlays and read-time truncation, and Arbor's own tools with their input schemas, each counted
 * with the store's token estimate, and the total against a budget the user sets. The settings are
 * the address's query (a link, a reload); nothing here writes.
 */
import { api } from "../api.js";
import type { ContextWindow, Message } from "../api-types.js";
import { h, replace, type Child } from "../dom.js";
import { formatNumber, messageText, pretty } from "../format.js";
import { navigate, sessionHref } from "../router.js";
import type { TreeModel } from "../tree-model.js";
import { isToolPart, toolCall } from "./message-parts.js";

/** What the context view needs. */
export interface ContextOptions {
  sessionId: string;
  model: TreeModel;
  params: URLSearchParams;
  report: (error: unknown) => void;
}

/** The budget when the user has set none: a common context window size. */
export const DEFAULT_BUDGET = 128_000;
/** Messages drawn at first, the newest; the earlier ones on request (a long history stays light). */
const SHOWN_MESSAGES = 200;
/** Characters of a message's preview. */
const PREVIEW_LENGTH = 200;

/** Reads the context window for the settings in the address and builds the view. */
export async function contextView(
  options: ContextOptions,
): Promise<HTMLElement> {
  const { params } = options;
  const answer = await api.contextWindow(options.sessionId, {
    leafId: params.get("leaf"),
    truncate: params.get("truncate") === "off" ? "false" : null,
    keepRecent: params.get("keepRecent"),
    maxToolOutputChars: params.get("maxToolOutputChars"),
    maxTextChars: params.get("maxTextChars"),
  });
  const budget = budgetOf(params);
  return h(
    "section",
    { class: "context-view" },
    settingsForm(options, answer, budget),
    totals(answer, budget),
    systemSection(answer),
    historySection(answer),
    toolsSection(answer),
  );
}

// --- Internal helpers ---

function budgetOf(params: URLSearchParams): number {
  const value = Number(params.get("budget"));
  return Number.isInteger(value) && value > 0 ? value : DEFAULT_BUDGET;
}

function settingsForm(
  options: ContextOptions,
  answer: ContextWindow,
  budget: number,
): HTMLElement {
  const { model } = options;
  const leaves = [...model.nodes.values()].filter(
    (node) => model.childrenOf(node.id).length === 0,
  );
  const leaf = h(
    "select",
    { name: "leaf" },
    h("option", { value: "" }, "The active branch"),
    leaves.map((node) =>
      h(
        "option",
        { value: node.id, selected: node.id === options.params.get("leaf") },
        `${node.id === model.activeLeafId ? "● " : ""}${clip(node.preview || node.id, 60)}`,
      ),
    ),
  );
  const truncation = answer.truncation;
  const truncate = h("input", {
    type: "checkbox",
    name: "truncate",
    checked: truncation !== null,
  });
  const number = (name: string, value: number, min: number) =>
    h("input", { type: "number", name, value, min, step: 1, required: true });
  const keepRecent = number("keepRecent", truncation?.keepRecent ?? 4, 0);
  const maxToolOutputChars = number(
    "maxToolOutputChars",
    truncation?.maxToolOutputChars ?? 500,
    0,
  );
  const maxTextChars = number(
    "maxTextChars",
    truncation?.maxTextChars ?? 10_000,
    0,
  );
  const budgetInput = number("budget", budget, 1);
  const field = (text: string, control: HTMLElement) =>
    h("label", {}, h("span", {}, text), control);
  const form = h(
    "form",
    { class: "context-settings", "aria-label": "Context settings" },
    field("Leaf", leaf),
    h(
      "fieldset",
      {},
      h("legend", {}, h("label", {}, truncate, " Truncate older messages")),
      field("Keep recent messages", keepRecent),
      field("Longest older tool output (characters)", maxToolOutputChars),
      field("Longest older text (characters)", maxTextChars),
    ),
    field("Budget (tokens)", budgetInput),
    h("button", { type: "submit" }, "Show"),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const on = truncate.checked;
    navigate(
      sessionHref(options.sessionId, "context", {
        leaf: leaf.value,
        truncate: on ? null : "off",
        keepRecent: on ? keepRecent.value : null,
        maxToolOutputChars: on ? maxToolOutputChars.value : null,
        maxTextChars: on ? maxTextChars.value : null,
        budget: budgetInput.value,
      }),
    );
  });
  return form;
}

function totals(answer: ContextWindow, budget: number): HTMLElement {
  const { all } = answer.totals;
  const over = all > budget;
  const percent = (tokens: number) =>
    `${((tokens / budget) * 100).toFixed(1)}%`;
  const row = (name: string, detail: string, tokens: number) =>
    h(
      "tr",
      {},
      h("th", { scope: "row" }, name),
      h("td", {}, detail),
      h("td", { class: "number" }, formatNumber(tokens)),
      h("td", { class: "number" }, percent(tokens)),
    );
  return h(
    "div",
    { class: "context-totals" },
    h("h2", {}, "Total"),
    h(
      "div",
      { class: "usage" },
      h(
        "div",
        {
          class: over ? "usage-bar full" : "usage-bar",
          role: "meter",
          "aria-label": "Context tokens against the budget",
          "aria-valuemin": 0,
          "aria-valuemax": budget,
          "aria-valuenow": Math.min(all, budget),
        },
        h("span", {
          style: `width:${Math.min(100, (all / budget) * 100).toFixed(1)}%`,
        }),
      ),
      h(
        "span",
        { class: over ? "usage-text over" : "usage-text", id: "context-total" },
        `${formatNumber(all)} of ${formatNumber(budget)} tokens (${percent(all)})`,
        over ? ` — ${formatNumber(all - budget)} over the budget` : "",
      ),
    ),
    h(
      "table",
      { class: "context-table" },
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "col" }, "Part"),
          h("th", { scope: "col" }, "What"),
          h("th", { scope: "col" }, "Tokens"),
          h("th", { scope: "col" }, "Of the budget"),
        ),
      ),
      h(
        "tbody",
        {},
        row(
          "System prompt",
          counted(
            answer.system.blocks.filter((block) => block.rendered).length,
            "block",
          ),
          answer.totals.system,
        ),
        row(
          "History",
          counted(answer.messages.length, "message"),
          answer.totals.messages,
        ),
        row(
          "Tools",
          counted(answer.tools.length, "Arbor tool"),
          answer.totals.tools,
        ),
      ),
    ),
    h(
      "p",
      { class: "muted" },
      `Counted with the store's ${answer.counter} token estimate. An application's own tools are not included.`,
    ),
  );
}

function systemSection(answer: ContextWindow): HTMLElement {
  const { system } = answer;
  return h(
    "div",
    { class: "context-system" },
    h("h2", {}, "System prompt"),
    h(
      "p",
      { class: "muted" },
      system.source === "frozen"
        ? "The frozen prompt, which the next turn sends. The blocks below are as they render now; the Prompt tab shows what changed since the freeze."
        : "No prompt is frozen yet: the next turn sends what the blocks render now.",
    ),
    h(
      "ul",
      { class: "context-blocks" },
      system.blocks.map((block) =>
        h(
          "li",
          { "data-label": block.label },
          h(
            "details",
            {},
            h(
              "summary",
              {},
              h("strong", {}, block.label),
              ` · ${formatNumber(block.tokens)} tokens`,
              block.maxTokens
                ? ` · content ${formatNumber(block.contentTokens)} / ${formatNumber(block.maxTokens)}`
                : "",
              block.rendered ? "" : " · not rendered (empty, read-only)",
            ),
            h("pre", { class: "prompt-text", tabindex: 0 }, block.text),
          ),
        ),
      ),
    ),
    h(
      "details",
      {},
      h(
        "summary",
        {},
        `The whole prompt · ${formatNumber(system.tokens)} tokens`,
      ),
      h("pre", { class: "prompt-text", tabindex: 0 }, system.text || "(empty)"),
    ),
  );
}

function historySection(answer: ContextWindow): HTMLElement {
  const { messages } = answer;
  const truncated = messages.filter((part) => part.truncated).length;
  const list = h("ol", { class: "context-messages" });
  const draw = (from: number) =>
    replace(
      list,
      from > 0
        ? h(
            "li",
            {},
            h(
              "button",
              { type: "button", onclick: () => draw(0) },
              `Show the ${formatNumber(from)} earlier messages`,
            ),
          )
        : null,
      messages.slice(from).map((part) => messageRow(part)),
    );
  draw(Math.max(0, messages.length - SHOWN_MESSAGES));
  const truncation = answer.truncation;
  return h(
    "div",
    { class: "context-history" },
    h("h2", {}, "History"),
    h(
      "p",
      { class: "muted" },
      messages.length === 0
        ? "No messages: a turn would have nothing to send (EMPTY_CONTEXT)."
        : `${formatNumber(messages.length)} messages on the path to ${answer.leafId}, overlays applied; ` +
            (truncation
              ? `${formatNumber(truncated)} shortened by read-time truncation (the stored messages stay whole).`
              : "truncation off."),
    ),
    list,
  );
}

function messageRow(part: ContextWindow["messages"][number]): HTMLElement {
  const message = part.message as Message;
  return h(
    "li",
    { "data-message-id": message.id, class: part.truncated ? "truncated" : "" },
    h("span", { class: "role" }, message.role),
    h("span", { class: "tokens" }, `${formatNumber(part.tokens)} tokens`),
    part.truncated ? h("span", { class: "tag" }, "truncated") : null,
    h("span", { class: "preview" }, clip(preview(message), PREVIEW_LENGTH)),
  );
}

function toolsSection(answer: ContextWindow): HTMLElement {
  const children: Child =
    answer.tools.length === 0
      ? h("p", { class: "muted" }, "No Arbor tools: no block a tool can write.")
      : h(
          "ul",
          { class: "context-tools" },
          answer.tools.map((tool) =>
            h(
              "li",
              { "data-tool": tool.name },
              h(
                "h3",
                {},
                tool.name,
                h(
                  "span",
                  { class: "usage-text" },
                  ` · ${formatNumber(tool.tokens)} tokens`,
                ),
              ),
              h("p", {}, tool.description),
              h(
                "details",
                {},
                h("summary", {}, "Input schema"),
                h(
                  "pre",
                  { class: "prompt-text", tabindex: 0 },
                  pretty(tool.inputSchema),
                ),
              ),
            ),
          ),
        );
  return h(
    "div",
    { class: "context-tools-part" },
    h("h2", {}, "Tools"),
    children,
  );
}

function preview(message: Message): string {
  const text = messageText(message);
  if (text) return text;
  const tools = message.parts.filter(isToolPart).map((p) => toolCall(p).name);
  return tools.length > 0 ? `tool: ${tools.join(", ")}` : "(no text)";
}

function counted(count: number, noun: string): string {
  return `${formatNumber(count)} ${noun}${count === 1 ? "" : "s"}`;
}

function clip(text: string, length: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > length ? line.slice(0, length - 1) + "…" : line;
}
