/**
 * Editing a writable block in place: the content in a text area, its token count against
 * `maxTokens` as the user types (the count the store holds the save to), and a save that writes
 * it as a new version of the block's history (PUT …/blocks/{label}). Nothing is written until Save.
 */
import { onEvent } from "../events.js";
import { api } from "../api.js";
import type { Block } from "../api-types.js";
import { blockTokens } from "../block-tokens.js";
import { h } from "../dom.js";
import { formatNumber } from "../format.js";

/** What the editor needs from the blocks view. */
export interface BlockEditorOptions {
  sessionId: string;
  reload: () => void;
  report: (error: unknown) => void;
}

/** Whether the studio can write `block`: a keyed block (skill, search) is written by its tools only. */
export function isEditable(block: Block): boolean {
  return block.writable && !block.isSkill && !block.isSearchable;
}

/**
 * The Edit button of a block card. It swaps `shown` (the content and its usage bar) for the
 * editor and back; the card carries `data-editing` meanwhile, so a live refresh keeps the draft.
 */
export function editButton(
  block: Block,
  card: HTMLElement,
  shown: HTMLElement[],
  options: BlockEditorOptions,
): HTMLButtonElement {
  const button = h("button", { type: "button", class: "edit-block" }, "Edit");
  button.addEventListener("click", () => {
    const close = () => {
      editor.remove();
      for (const element of shown) element.hidden = false;
      button.hidden = false;
      delete card.dataset.editing;
      button.focus();
    };
    const editor = blockEditor(block, options, close);
    for (const element of shown) element.hidden = true;
    button.hidden = true;
    card.dataset.editing = "true";
    shown[shown.length - 1]!.after(editor);
    editor.querySelector("textarea")!.focus();
  });
  return button;
}

// --- Internal helpers ---

function blockEditor(
  block: Block,
  options: BlockEditorOptions,
  close: () => void,
): HTMLFormElement {
  const limit = block.maxTokens;
  const area = h("textarea", {
    class: "block-editor",
    name: "content",
    rows: 8,
    spellcheck: false,
    "aria-label": `Content of ${block.label}`,
  });
  area.value = block.content;
  const fill = h("span", {});
  const meter = h(
    "div",
    {
      class: "usage-bar",
      role: "meter",
      "aria-label": `${block.label} token usage while editing`,
      "aria-valuemin": 0,
    },
    fill,
  );
  const count = h("span", { class: "usage-text draft-count" });
  const save = h(
    "button",
    { type: "submit", class: "primary" },
    "Save as a new version",
  );
  const cancel = h("button", { type: "button", onclick: close }, "Cancel");
  const update = () => {
    const tokens = blockTokens(area.value);
    const over = limit !== undefined && tokens > limit;
    const ratio = limit ? Math.min(1, tokens / limit) : 0;
    fill.style.width = `${(ratio * 100).toFixed(1)}%`;
    meter.classList.toggle("full", over || ratio > 0.9);
    meter.setAttribute("aria-valuemax", String(limit ?? tokens));
    meter.setAttribute("aria-valuenow", String(tokens));
    count.textContent = limit
      ? `${formatNumber(tokens)} / ${formatNumber(limit)} tokens` +
        (over ? ` — ${formatNumber(tokens - limit)} over the limit` : "")
      : `${formatNumber(tokens)} tokens (no limit)`;
    count.classList.toggle("over", over);
    // The store refuses a block over its limit (BLOCK_TOO_LARGE); an unchanged text is no version.
    save.disabled = over || area.value === block.content;
  };
  area.addEventListener("input", update);
  update();
  const form = h(
    "form",
    { class: "block-edit" },
    area,
    h("div", { class: "usage" }, meter, count),
    h("div", { class: "actions" }, save, cancel),
  );
  form.addEventListener(
    "submit",
    onEvent(async (event: SubmitEvent) => {
      event.preventDefault();
      if (save.disabled) return;
      save.disabled = true;
      try {
        await api.replaceBlock(options.sessionId, block.label, area.value);
        delete form.closest<HTMLElement>("[data-editing]")?.dataset.editing;
        options.reload();
      } catch (error) {
        save.disabled = false;
        options.report(error);
      }
    }),
  );
  form.addEventListener("keydown", (event) => {
    if (event.key === "Escape") close();
  });
  return form;
}
