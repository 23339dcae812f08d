/** The frozen system prompt, and what the blocks changed since it was frozen. */
import { onEvent } from "../events.js";
import { api } from "../api.js";
import type { PromptAnswer } from "../api-types.js";
import { h } from "../dom.js";
import { diffView } from "./diff-view.js";

/** What the prompt view needs. */
export interface PromptOptions {
  sessionId: string;
  answer: PromptAnswer;
  reload: () => void;
  report: (error: unknown) => void;
}

/** Builds the prompt view. */
export function promptView(options: PromptOptions): HTMLElement {
  const { prompt, current } = options.answer;
  const refresh = h(
    "button",
    {
      type: "button",
      onclick: onEvent(async () => {
        try {
          await api.refreshPrompt(options.sessionId);
          options.reload();
        } catch (error) {
          options.report(error);
        }
      }),
    },
    "Freeze the current prompt",
  );
  return h(
    "section",
    { class: "prompt-view" },
    h("h2", {}, "Frozen system prompt"),
    prompt === null
      ? h(
          "p",
          { class: "muted" },
          "No prompt has been frozen for this session yet.",
        )
      : h("pre", { class: "prompt-text" }, prompt || "(empty)"),
    h("h2", {}, "Changes in the blocks since it was frozen"),
    current === null
      ? h(
          "p",
          { class: "muted" },
          "No context blocks render a prompt for this session.",
        )
      : diffView(prompt ?? "", current, "Changes since the prompt was frozen"),
    h("div", { class: "actions" }, refresh),
  );
}
