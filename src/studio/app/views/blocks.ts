/**
 * Context blocks: content with a token-usage bar, editing in place (block-editor.ts), creating
 * one (block-create.ts), deleting a created one after a confirmation (DELETE …/blocks/{label}),
 * the write history, a diff between any two versions, and revert to a version after a
 * confirmation (POST …/revert).
 */
import { onEvent } from "../events.js";
import { api } from "../api.js";
import type { Block, BlockVersion } from "../api-types.js";
import { h, replace } from "../dom.js";
import { dangerButton } from "./danger-button.js";
import { formatDate, formatNumber } from "../format.js";
import { newBlock } from "./block-create.js";
import { editButton, isEditable } from "./block-editor.js";
import { diffView } from "./diff-view.js";

/** What the blocks view needs. */
export interface BlocksOptions {
  sessionId: string;
  blocks: Block[];
  reload: () => void;
  report: (error: unknown) => void;
}

/** Builds the blocks view. */
export function blocksView(options: BlocksOptions): HTMLElement {
  const create = newBlock({
    ...options,
    labels: options.blocks.map((block) => block.label),
  });
  if (options.blocks.length === 0)
    return h(
      "section",
      { class: "blocks-view" },
      h("p", { class: "muted" }, "This session has no context blocks yet."),
      create,
    );
  return h(
    "section",
    { class: "blocks-view" },
    options.blocks.map((block) => blockCard(block, options)),
    create,
  );
}

// --- Internal helpers ---

function blockCard(block: Block, options: BlocksOptions): HTMLElement {
  const history = h("div", { class: "block-history", hidden: true });
  const toggle = h(
    "button",
    { type: "button", "aria-expanded": "false" },
    "History",
  );
  toggle.addEventListener(
    "click",
    onEvent(async () => {
      const opening = history.hidden;
      history.hidden = !opening;
      toggle.setAttribute("aria-expanded", String(opening));
      if (!opening) return;
      replace(history, h("p", { class: "muted" }, "Loading…"));
      try {
        const { versions } = await api.blockHistory(
          options.sessionId,
          block.label,
        );
        replace(history, historyPanel(block, versions, options));
      } catch (error) {
        options.report(error);
      }
    }),
  );
  const usage = usageBar(block);
  const content = h(
    "pre",
    { class: "block-content" },
    block.content || "(empty)",
  );
  const card = h(
    "article",
    { class: "block", "data-label": block.label },
    h(
      "header",
      {},
      // The page's h1 is the session's name: a block is the next level.
      h("h2", {}, block.label),
      block.writable ? null : h("span", { class: "tag" }, "read-only"),
      block.isSkill ? h("span", { class: "tag" }, "skill") : null,
    ),
    block.description ? h("p", { class: "muted" }, block.description) : null,
    usage,
    content,
  );
  card.append(
    h(
      "div",
      { class: "actions" },
      isEditable(block)
        ? editButton(block, card, [usage, content], options)
        : null,
      toggle,
      block.created ? deleteButton(block, options) : null,
    ),
    history,
  );
  return card;
}

/**
 * Delete… on a block created in the session (the application's declared blocks are its own): it
 * cannot be taken back, so it asks first.
 */
function deleteButton(block: Block, options: BlocksOptions): HTMLElement {
  return dangerButton(
    "Delete…",
    `Delete the block ${block.label} for good? Its content and its history of versions go with it; it cannot be undone. The frozen prompt keeps it until Freeze the current prompt.`,
    async () => {
      await api.deleteBlock(options.sessionId, block.label);
      options.reload();
    },
    options.report,
  );
}

function usageBar(block: Block): HTMLElement {
  const limit = block.maxTokens;
  const ratio = limit ? Math.min(1, block.tokens / limit) : 0;
  const text = limit
    ? `${formatNumber(block.tokens)} / ${formatNumber(limit)} tokens`
    : `${formatNumber(block.tokens)} tokens (no limit)`;
  return h(
    "div",
    { class: "usage" },
    h(
      "div",
      {
        class: ratio > 0.9 ? "usage-bar full" : "usage-bar",
        role: "meter",
        "aria-label": `${block.label} token usage`,
        "aria-valuemin": 0,
        "aria-valuemax": limit ?? block.tokens,
        "aria-valuenow": block.tokens,
      },
      h("span", { style: `width:${(ratio * 100).toFixed(1)}%` }),
    ),
    h("span", { class: "usage-text" }, text),
  );
}

function historyPanel(
  block: Block,
  versions: BlockVersion[],
  options: BlocksOptions,
): HTMLElement[] {
  if (versions.length === 0)
    return [h("p", { class: "muted" }, "No recorded writes.")];
  const newest = versions[versions.length - 1]!;
  const choose = (name: string, selected: number) =>
    h(
      "select",
      {
        name,
        "aria-label":
          name === "from" ? "Compare from version" : "Compare to version",
      },
      h("option", { value: 0, selected: selected === 0 }, "empty"),
      versions.map((v) =>
        h(
          "option",
          { value: v.version, selected: v.version === selected },
          `v${v.version}`,
        ),
      ),
    );
  const from = choose("from", Math.max(0, newest.version - 1));
  const to = choose("to", newest.version);
  const output = h("div", { class: "diff-output" });
  const contentOf = (version: number) =>
    versions.find((v) => v.version === version)?.content ?? "";
  const show = () =>
    replace(
      output,
      diffView(
        contentOf(Number(from.value)),
        contentOf(Number(to.value)),
        `Diff of ${block.label}`,
      ),
    );
  from.addEventListener("change", show);
  to.addEventListener("change", show);
  show();
  const rows = [...versions].reverse().map((version) =>
    h(
      "li",
      { "data-version": version.version },
      h("strong", {}, `v${version.version}`),
      ` ${version.source} · ${formatDate(version.at)}`,
      version.toolCallId ? ` · ${version.toolCallId}` : "",
      version.version === newest.version
        ? h("span", { class: "tag" }, "current")
        : block.writable
          ? h(
              "button",
              {
                type: "button",
                onclick: onEvent(async () => {
                  // A revert is a write: the block's content changes (history keeps every version).
                  if (
                    !confirm(
                      `Revert ${block.label} to v${version.version}? Its content becomes v${version.version}'s again, written as a new version; the history keeps every version.`,
                    )
                  )
                    return;
                  try {
                    await api.revertBlock(
                      options.sessionId,
                      block.label,
                      version.version,
                    );
                    options.reload();
                  } catch (error) {
                    options.report(error);
                  }
                }),
              },
              `Revert to v${version.version}`,
            )
          : null,
    ),
  );
  return [
    h("ol", { class: "versions", reversed: true }, rows),
    h("div", { class: "diff-controls" }, "Compare ", from, " with ", to),
    output,
  ];
}
