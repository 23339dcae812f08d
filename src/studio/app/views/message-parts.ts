/**
 * One message's parts as a transcript: text as Markdown (built as elements, never parsed as HTML),
 * reasoning collapsed, each tool call as one line (tool, first argument, status) that opens to
 * its input, with string fields shown as written (a file a `Write` call wrote reads as a file),
 * and its output, long ones folded; files (images inline), sources, anything else as JSON.
 */
import type { MessagePart } from "../api-types.js";
import { h, type Child } from "../dom.js";
import { pretty } from "../format.js";
import { parseMarkdown, type Inline, type MarkdownBlock } from "../markdown.js";

/** Lines of a tool input field or output shown before the rest is folded. */
const FOLD_LINES = 16;
/** Characters shown before folding a long single-line value. */
const FOLD_CHARACTERS = 2000;
/** Characters of the first argument on a tool call's one line. */
const SUMMARY_ARGUMENT = 90;

/** What parts can link to beyond the message: the transcript of a subagent call. */
export interface PartLinks {
  /** The address of the subagent session a call (`Task`) started, if one is known. */
  subagentHref?: (call: ToolCall) => string | null;
}

/** A tool call read from any of the part shapes (AI SDK 5/6 `tool-*`, dynamic, older invocations). */
export interface ToolCall {
  name: string;
  id: string | null;
  input: unknown;
  output: unknown;
  error: string | null;
  /** `done`, `error`, `running` or what the part says. */
  status: string;
}

/** Renders every part of a message; step markers are skipped. */
export function renderParts(
  parts: MessagePart[],
  links: PartLinks = {},
): Child[] {
  return parts.map((part) => renderPart(part, links));
}

/** True for a tool call part. */
export function isToolPart(part: MessagePart): boolean {
  return (
    part.type.startsWith("tool-") ||
    part.type === "dynamic-tool" ||
    part.type === "tool-invocation" ||
    typeof part.toolCallId === "string"
  );
}

/** The call a tool part describes. */
export function toolCall(part: MessagePart): ToolCall {
  const invocation = (part.toolInvocation ?? {}) as Record<string, unknown>;
  const name =
    part.toolName ??
    (typeof invocation.toolName === "string"
      ? invocation.toolName
      : undefined) ??
    part.type.replace(/^tool-/, "");
  const state =
    part.state ??
    (typeof invocation.state === "string" ? invocation.state : "");
  const error = typeof part.errorText === "string" ? part.errorText : null;
  const output = part.output ?? part.result ?? invocation.result;
  return {
    name,
    id:
      part.toolCallId ??
      (typeof invocation.toolCallId === "string"
        ? invocation.toolCallId
        : null),
    input: part.input ?? invocation.args,
    output,
    error,
    status:
      error !== null || state === "output-error"
        ? "error"
        : state === "output-available" ||
            state === "result" ||
            output !== undefined
          ? "done"
          : state === "input-streaming" ||
              state === "input-available" ||
              state === "call" ||
              state === "partial-call"
            ? "running"
            : state || "unknown",
  };
}

/**
 * The first argument of a call, as one line: what the call is about (a path, a command, a query).
 * A call that hands work to an agent (a `description` and a `prompt`, as Claude Code's Task) says
 * what it asked, not which kind of agent it asked: three Task calls read as three requests.
 */
export function firstArgument(input: unknown): string {
  if (input === undefined || input === null) return "";
  if (typeof input !== "object") return oneLine(pretty(input));
  const { description, prompt } = input as Record<string, unknown>;
  if (typeof prompt === "string" && typeof description === "string")
    return oneLine(`${description} — ${prompt}`);
  const entries = Object.entries(input as Record<string, unknown>);
  const first =
    entries.find(([, value]) => typeof value === "string") ?? entries[0];
  if (!first) return "";
  const [, value] = first;
  return oneLine(typeof value === "string" ? value : pretty(value));
}

// --- Internal helpers ---

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > SUMMARY_ARGUMENT
    ? line.slice(0, SUMMARY_ARGUMENT - 1) + "…"
    : line;
}

function renderPart(part: MessagePart, links: PartLinks): Child {
  if (part.type === "text") return markdown(part.text ?? "");
  if (part.type === "reasoning")
    return h(
      "details",
      { class: "part-reasoning" },
      h("summary", {}, "Reasoning"),
      h("div", { class: "part-text" }, part.text ?? part.reasoning ?? ""),
    );
  if (part.type === "step-start") return null;
  if (part.type === "file") return renderFile(part);
  if (part.type === "source-url" || part.type === "source-document")
    return h(
      "div",
      { class: "part-source" },
      "Source: ",
      typeof part.url === "string" && /^https?:\/\//i.test(part.url)
        ? h(
            "a",
            { href: part.url, rel: "noreferrer noopener", target: "_blank" },
            pretty(part.title ?? part.url),
          )
        : pretty(part.title ?? part.url ?? part.sourceId ?? ""),
    );
  if (isToolPart(part)) return renderTool(toolCall(part), links);
  return h(
    "details",
    { class: "part-other" },
    h("summary", {}, part.type),
    h("pre", {}, pretty(part)),
  );
}

/** Message text as Markdown elements. */
function markdown(text: string): HTMLElement {
  return h(
    "div",
    { class: "part-text markdown" },
    parseMarkdown(text).map(markdownBlock),
  );
}

function markdownBlock(block: MarkdownBlock): Child {
  switch (block.kind) {
    case "heading":
      return h(`h${block.level}`, {}, block.children.map(inline));
    case "paragraph":
      return h("p", {}, block.children.map(inline));
    case "code":
      return folded(
        block.text,
        "md-code",
        block.language ? { "data-language": block.language } : {},
      );
    case "quote":
      return h("blockquote", {}, block.children.map(markdownBlock));
    case "list":
      return h(
        block.ordered ? "ol" : "ul",
        {
          ...(block.ordered && block.start !== 1 ? { start: block.start } : {}),
          class: block.tasks ? "tasks" : null,
        },
        block.items.map((item, index) => {
          const task = block.tasks?.[index] ?? null;
          return h(
            "li",
            {},
            // A record of the model's list, not a control: it cannot be ticked here.
            task === null
              ? null
              : h("input", {
                  type: "checkbox",
                  disabled: true,
                  checked: task,
                  "aria-label": task ? "Done" : "Not done",
                }),
            item.map(markdownBlock),
          );
        }),
      );
    case "table":
      // Scrolls sideways on its own (a wide table at 390 px), reachable with the keyboard.
      return h(
        "div",
        {
          class: "md-table",
          tabindex: 0,
          role: "group",
          "aria-label": "Table",
        },
        h(
          "table",
          {},
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              block.head.map((cell, column) =>
                h("th", alignOf(block.align[column]), cell.map(inline)),
              ),
            ),
          ),
          h(
            "tbody",
            {},
            block.rows.map((row) =>
              h(
                "tr",
                {},
                row.map((cell, column) =>
                  h("td", alignOf(block.align[column]), cell.map(inline)),
                ),
              ),
            ),
          ),
        ),
      );
    case "rule":
      return h("hr");
  }
}

function alignOf(
  align: "left" | "center" | "right" | null | undefined,
): Record<string, string> {
  return align ? { class: `align-${align}` } : {};
}

function inline(run: Inline): Child {
  switch (run.kind) {
    case "text":
      return run.text;
    case "code":
      return h("code", {}, run.text);
    case "math":
      return h("span", { class: "math" }, run.text);
    case "strong":
      return h("strong", {}, run.children.map(inline));
    case "em":
      return h("em", {}, run.children.map(inline));
    case "link":
      return h(
        "a",
        { href: run.href, rel: "noreferrer noopener", target: "_blank" },
        run.children.map(inline),
      );
  }
}

function renderTool(call: ToolCall, links: PartLinks): HTMLElement {
  const argument = firstArgument(call.input);
  const subagent = links.subagentHref?.(call) ?? null;
  const details = h(
    "details",
    {
      class: `part-tool status-${call.status.replace(/[^a-z-]/gi, "")}`,
      "data-tool": call.name,
    },
    h(
      "summary",
      {},
      h("span", { class: "tool-badge" }, "tool"),
      " ",
      h("code", { class: "tool-name" }, call.name),
      " ",
      argument ? h("span", { class: "tool-arg" }, argument) : null,
      argument ? " " : null,
      h("span", { class: "tool-state" }, call.status),
    ),
  );
  // Built when first opened: a transcript of hundreds of calls stays cheap while collapsed.
  let built = false;
  details.addEventListener("toggle", () => {
    if (built || !details.open) return;
    built = true;
    details.append(
      ...toolFields(call.input),
      h(
        "div",
        { class: "tool-label" },
        call.error !== null ? "Error" : "Output",
      ),
      call.error !== null
        ? folded(call.error, "tool-output")
        : call.output === undefined
          ? h("pre", { class: "tool-output" }, "—")
          : folded(pretty(call.output), "tool-output"),
    );
  });
  if (!subagent) return details;
  return h(
    "div",
    { class: "tool-with-link" },
    details,
    h(
      "a",
      { class: "subagent-link", href: subagent },
      "Open the subagent transcript →",
    ),
  );
}

/** The input's fields, each under its name; strings as written, other values as JSON. */
function toolFields(input: unknown): HTMLElement[] {
  if (input === undefined)
    return [
      h("div", { class: "tool-label" }, "Input"),
      h("pre", { class: "tool-input" }, "—"),
    ];
  if (input === null || typeof input !== "object" || Array.isArray(input))
    return [
      h("div", { class: "tool-label" }, "Input"),
      folded(pretty(input), "tool-input"),
    ];
  return Object.entries(input as Record<string, unknown>).flatMap(
    ([name, value]) => [
      h("div", { class: "tool-label" }, name),
      folded(typeof value === "string" ? value : pretty(value), "tool-input"),
    ],
  );
}

/** A `<pre>` that shows the first lines of a long text and a button for the rest. */
function folded(
  text: string,
  className: string,
  props: Record<string, string> = {},
): HTMLElement {
  const lines = text.split("\n");
  const long = lines.length > FOLD_LINES || text.length > FOLD_CHARACTERS;
  const pre = h("pre", { class: className, ...props });
  if (!long) {
    pre.textContent = text;
    return pre;
  }
  const head = lines.slice(0, FOLD_LINES).join("\n").slice(0, FOLD_CHARACTERS);
  pre.textContent = head + "\n…";
  const more = h(
    "button",
    { type: "button", class: "unfold" },
    `Show all ${lines.length.toLocaleString()} lines (${text.length.toLocaleString()} characters)`,
  );
  more.addEventListener("click", () => {
    pre.textContent = text;
    more.remove();
  });
  return h("div", { class: "folded" }, pre, more);
}

function renderFile(part: MessagePart): HTMLElement {
  const mediaType = typeof part.mediaType === "string" ? part.mediaType : "";
  const url = typeof part.url === "string" ? part.url : "";
  const name =
    typeof part.filename === "string" ? part.filename : mediaType || "file";
  // Only data: URLs display inline: the studio works offline and loads nothing from elsewhere.
  const inline = url.startsWith("data:");
  return h(
    "figure",
    { class: "part-file" },
    inline && mediaType.startsWith("image/")
      ? h("img", { src: url, alt: name, loading: "lazy" })
      : null,
    h(
      "figcaption",
      {},
      h("span", { class: "file-badge" }, "file"),
      " ",
      inline ? h("a", { href: url, download: name }, name) : name,
      mediaType ? ` (${mediaType})` : "",
    ),
  );
}
