/**
 * What a session's header can do besides showing it: rename (PATCH), export in the formats
 * `arbor export` writes (a read: the file is saved, nothing is stored), and delete, which erases
 * the session for good (DELETE, after a confirmation).
 */
import { api } from "../api.js";
import type { SessionView } from "../api-types.js";
import { h, replace } from "../dom.js";
import { dangerButton } from "./danger-button.js";
import { onEvent } from "../events.js";
import { formatNumber } from "../format.js";
import { navigate, sessionsHref } from "../router.js";

/** What the actions need from the page. */
export interface SessionActionsOptions {
  info: SessionView;
  /** The title element: the rename form opens after it, and a new name shows in it. */
  title: HTMLElement;
  /** The branch on screen when it is not the active one (Markdown exports it). */
  leafId: string | null;
  reload: () => void;
  report: (error: unknown) => void;
}

/** The header's buttons: Rename, Export and Delete. */
export function sessionActions(options: SessionActionsOptions): HTMLElement[] {
  const { info } = options;
  const rename = h("button", { type: "button" }, "Rename");
  rename.addEventListener("click", () => openRename(options, rename));
  const formats: Array<["jsonl" | "snapshot" | "markdown", string]> = [
    ["jsonl", "Tree JSONL (every branch)"],
    ["snapshot", "Snapshot JSON (every branch)"],
    ["markdown", "Markdown (this branch)"],
  ];
  const menu: HTMLDetailsElement = h(
    "details",
    { class: "menu export-menu" },
    h("summary", {}, "Export"),
    h(
      "div",
      { class: "menu-items" },
      formats.map(([format, title]) =>
        h(
          "button",
          {
            type: "button",
            "data-format": format,
            onclick: onEvent(async () => {
              menu.open = false;
              try {
                await api.exportSession(
                  info.id,
                  format,
                  format === "markdown" ? options.leafId : null,
                );
              } catch (error) {
                options.report(error);
              }
            }),
          },
          title,
        ),
      ),
    ),
  );
  const remove = dangerButton(
    "Delete…",
    `Delete "${info.name || info.id}" for good? This erases its ${formatNumber(info.messageCount)} messages with their overlays, blocks, search index, embeddings, attachments and audit events. It cannot be undone. Sessions it started are kept.`,
    async () => {
      await api.deleteSession(info.id);
      navigate(sessionsHref());
    },
    options.report,
  );
  return [rename, menu, remove];
}

// --- Internal helpers ---

/** Opens a form under the title holding the name; Save writes it, Cancel or Escape leaves it. */
function openRename(
  options: SessionActionsOptions,
  button: HTMLButtonElement,
): void {
  const { title, info } = options;
  const input = h("input", {
    type: "text",
    name: "name",
    value: info.name,
    required: true,
    maxlength: 500,
    "aria-label": "Session name",
  });
  const close = () => {
    form.remove();
    button.disabled = false;
    button.focus();
  };
  const form: HTMLFormElement = h(
    "form",
    {
      class: "rename-form",
      onsubmit: onEvent(async (event: SubmitEvent) => {
        event.preventDefault();
        const name = input.value.trim();
        if (!name || name === info.name) return close();
        try {
          const renamed = await api.renameSession(info.id, name);
          info.name = renamed.name;
          replace(title, renamed.name);
          close();
          options.reload();
        } catch (error) {
          options.report(error);
        }
      }),
      onkeydown: (event: KeyboardEvent) => {
        if (event.key === "Escape") close();
      },
    },
    input,
    h("button", { type: "submit", class: "primary" }, "Save"),
    h("button", { type: "button", onclick: close }, "Cancel"),
  );
  title.after(form);
  button.disabled = true;
  input.focus();
  input.select();
}
