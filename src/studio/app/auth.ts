/**
 * The API key, when the server has keys configured: asked for on the first 401 and kept in
 * sessionStorage only, so it leaves with the tab and never reaches localStorage or a cookie.
 */
import { h } from "./dom.js";

const STORAGE_KEY = "arbor.studio.apiKey";
let pending: Promise<boolean> | null = null;

/** The `Authorization` header for the stored key, or nothing. */
export function authHeaders(): Record<string, string> {
  const key = sessionStorage.getItem(STORAGE_KEY);
  return key ? { authorization: `Bearer ${key}` } : {};
}

/** Forgets the stored key (the "Sign out" button). */
export function forgetKey(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}

/** True when a key is stored. */
export function hasKey(): boolean {
  return sessionStorage.getItem(STORAGE_KEY) !== null;
}

/**
 * Shows the key dialog and resolves `true` once a key is entered, `false` when cancelled.
 * Concurrent 401s share one dialog.
 */
export function askForKey(): Promise<boolean> {
  pending ??= showDialog().finally(() => (pending = null));
  return pending;
}

// --- Internal helpers ---

function showDialog(): Promise<boolean> {
  const rejected = hasKey();
  forgetKey();
  return new Promise((resolve) => {
    const input = h("input", {
      type: "password",
      name: "key",
      autocomplete: "off",
      placeholder: "arbor_sk_…",
      "aria-label": "API key",
      required: true,
    });
    const dialog = h(
      "dialog",
      { class: "key-dialog", "aria-labelledby": "key-title" },
      h(
        "form",
        { method: "dialog" },
        h("h2", { id: "key-title" }, "API key required"),
        h(
          "p",
          {},
          rejected
            ? "The server did not accept that key. Enter another one."
            : "This server has API keys configured. Enter a key (arbor keys create) to continue. It is kept in this tab only.",
        ),
        input,
        h(
          "div",
          { class: "actions" },
          h(
            "button",
            { type: "submit", value: "ok", class: "primary" },
            "Use key",
          ),
          h(
            "button",
            { type: "submit", value: "cancel", formnovalidate: true },
            "Cancel",
          ),
        ),
      ),
    );
    dialog.addEventListener("close", () => {
      const key = input.value.trim();
      dialog.remove();
      if (dialog.returnValue === "ok" && key) {
        sessionStorage.setItem(STORAGE_KEY, key);
        resolve(true);
      } else resolve(false);
    });
    document.body.append(dialog);
    dialog.showModal();
    input.focus();
  });
}
