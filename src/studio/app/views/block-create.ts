/**
 * Creating a block in a session: New block opens a form (label, description, max tokens, initial
 * content with its live token count), and Create block… writes it after a confirmation
 * (POST …/blocks). The block is stored with the session, so it cannot be taken back from here:
 * nothing is written until the user confirms.
 */
import { onEvent } from "../events.js";
import { api } from "../api.js";
import type { CreateBlock } from "../api-types.js";
import { blockTokens } from "../block-tokens.js";
import { h } from "../dom.js";
import { formatNumber } from "../format.js";

/** A label as the server takes it: it is a path segment of the block's routes. */
const LABEL = "[A-Za-z0-9][A-Za-z0-9_\\-]{0,63}";

/** What the form needs from the blocks view. */
export interface BlockCreateOptions {
  sessionId: string;
  /** Labels the session has: a taken one is refused before anything is sent. */
  labels: readonly string[];
  reload: () => void;
  report: (error: unknown) => void;
}

/** The New block button and the form it opens below it. */
export function newBlock(options: BlockCreateOptions): HTMLElement {
  const button = h(
    "button",
    { type: "button", class: "new-block", "aria-expanded": "false" },
    "New block",
  );
  const holder = h("div", { class: "block-create" }, button);
  button.addEventListener("click", () => {
    const close = () => {
      form.remove();
      delete holder.dataset.editing;
      button.hidden = false;
      button.setAttribute("aria-expanded", "false");
      button.focus();
    };
    const form = createForm(options, close);
    button.hidden = true;
    button.setAttribute("aria-expanded", "true");
    // A live update re-renders the view only when nothing is being edited (main.ts).
    holder.dataset.editing = "true";
    holder.append(form);
    form.querySelector("input")!.focus();
  });
  return holder;
}

// --- Internal helpers ---

function createForm(
  options: BlockCreateOptions,
  close: () => void,
): HTMLFormElement {
  const label = h("input", {
    name: "label",
    required: true,
    pattern: LABEL,
    maxlength: 64,
    autocomplete: "off",
    spellcheck: false,
  });
  const description = h("input", { name: "description", maxlength: 2000 });
  const maxTokens = h("input", {
    name: "maxTokens",
    type: "number",
    min: 1,
    step: 1,
    inputmode: "numeric",
  });
  const content = h("textarea", {
    class: "block-editor",
    name: "content",
    rows: 6,
    spellcheck: false,
  });
  const count = h("span", { class: "usage-text draft-count" });
  const problem = h("p", { class: "form-problem", role: "status" });
  const create = h(
    "button",
    { type: "submit", class: "primary" },
    "Create block…",
  );
  const cancel = h("button", { type: "button", onclick: close }, "Cancel");
  const limit = () => {
    const value = Number(maxTokens.value);
    return maxTokens.value !== "" && Number.isInteger(value) && value > 0
      ? value
      : undefined;
  };
  // What is wrong with the form as it stands, or "" when it can be created.
  const check = () => {
    const name = label.value.trim();
    if (name === "") return "A block needs a label.";
    if (!new RegExp(`^${LABEL}$`).test(name))
      return "A label is letters, digits, - or _ (up to 64), starting with a letter or digit.";
    if (options.labels.includes(name))
      return `This session already has a block "${name}".`;
    if (maxTokens.value !== "" && limit() === undefined)
      return "Max tokens is a whole number above 0, or empty for no limit.";
    const max = limit();
    if (max !== undefined && blockTokens(content.value) > max)
      return "The initial content is over max tokens.";
    return "";
  };
  const update = () => {
    const tokens = blockTokens(content.value);
    const max = limit();
    count.textContent =
      max !== undefined
        ? `${formatNumber(tokens)} / ${formatNumber(max)} tokens` +
          (tokens > max
            ? ` — ${formatNumber(tokens - max)} over the limit`
            : "")
        : `${formatNumber(tokens)} tokens (no limit)`;
    count.classList.toggle("over", max !== undefined && tokens > max);
    const wrong = check();
    problem.textContent = label.value === "" ? "" : wrong;
    create.disabled = wrong !== "";
  };
  for (const input of [label, maxTokens, content])
    input.addEventListener("input", update);
  update();
  const field = (text: string, control: HTMLElement, hint?: string) =>
    h(
      "label",
      {},
      h("span", {}, text),
      control,
      hint ? h("span", { class: "muted hint" }, hint) : null,
    );
  const form = h(
    "form",
    { class: "block-create-form", "aria-label": "New block" },
    h("h2", {}, "New block"),
    field("Label", label, "letters, digits, - or _"),
    field("Description (optional)", description),
    field("Max tokens (optional)", maxTokens, "empty for no limit"),
    field("Initial content (optional)", content),
    h("div", { class: "usage" }, count),
    problem,
    h("div", { class: "actions" }, create, cancel),
  );
  // One key per form: a submit repeated after a lost answer creates the block once.
  // (getRandomValues, not randomUUID: a studio served over plain http on a LAN has no randomUUID.)
  const key = `studio-block-${Array.from(
    crypto.getRandomValues(new Uint8Array(16)),
    (byte) => byte.toString(16).padStart(2, "0"),
  ).join("")}`;
  form.addEventListener(
    "submit",
    onEvent(async (event: SubmitEvent) => {
      event.preventDefault();
      if (create.disabled || check() !== "") return;
      const body: CreateBlock = { label: label.value.trim() };
      if (description.value.trim() !== "")
        body.description = description.value.trim();
      const max = limit();
      if (max !== undefined) body.maxTokens = max;
      if (content.value !== "") body.content = content.value;
      // A write the studio cannot take back: the block stays with the session.
      if (
        !confirm(
          `Create the block "${body.label}" in this session? It is stored with the session and shown in its system prompt from the next freeze; the studio cannot remove it.`,
        )
      )
        return;
      create.disabled = true;
      try {
        await api.createBlock(options.sessionId, body, key);
        close();
        options.reload();
      } catch (error) {
        create.disabled = false;
        options.report(error);
      }
    }),
  );
  form.addEventListener("keydown", (event) => {
    if (event.key === "Escape") close();
  });
  return form;
}
