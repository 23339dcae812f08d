/**
 * One message's parts as chat: text, reasoning (collapsed), tool calls with their inputs and
 * outputs, files (images inline), sources and anything else as labelled JSON.
 */
import type { MessagePart } from "../api-types.js";
import { h, type Child } from "../dom.js";
import { inlineRuns, pretty } from "../format.js";

/** Renders every part of a message; step markers are skipped. */
export function renderParts(parts: MessagePart[]): Child[] {
  return parts.map(renderPart);
}

// --- Internal helpers ---

function renderPart(part: MessagePart): Child {
  if (part.type === "text")
    return h("div", { class: "part-text" }, withMarks(part.text ?? ""));
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
      typeof part.url === "string"
        ? h(
            "a",
            { href: part.url, rel: "noreferrer noopener", target: "_blank" },
            String(part.title ?? part.url),
          )
        : String(part.title ?? part.sourceId ?? ""),
    );
  if (isToolPart(part)) return renderTool(part);
  return h(
    "details",
    { class: "part-other" },
    h("summary", {}, part.type),
    h("pre", {}, pretty(part)),
  );
}

/** Text with its **strong** and `code` runs as elements (text nodes only: nothing is parsed as HTML). */
function withMarks(text: string): Child[] {
  return inlineRuns(text).map((run) =>
    run.kind === "text" ? run.text : h(run.kind, {}, run.text),
  );
}

function isToolPart(part: MessagePart): boolean {
  return (
    part.type.startsWith("tool-") ||
    part.type === "dynamic-tool" ||
    typeof part.toolCallId === "string"
  );
}

function renderTool(part: MessagePart): HTMLElement {
  const invocation = (part.toolInvocation ?? {}) as Record<string, unknown>;
  const name =
    part.toolName ??
    (typeof invocation.toolName === "string"
      ? invocation.toolName
      : undefined) ??
    part.type.replace(/^tool-/, "");
  const input = part.input ?? invocation.args;
  const output = part.output ?? part.result ?? invocation.result;
  const state =
    part.state ??
    (typeof invocation.state === "string" ? invocation.state : "");
  const failed = typeof part.errorText === "string";
  return h(
    "details",
    { class: failed ? "part-tool failed" : "part-tool", open: true },
    h(
      "summary",
      {},
      h("span", { class: "tool-badge" }, "tool"),
      " ",
      h("code", {}, name),
      state ? h("span", { class: "tool-state" }, ` ${state}`) : null,
    ),
    h("div", { class: "tool-label" }, "Input"),
    h(
      "pre",
      { class: "tool-input" },
      input === undefined ? "—" : pretty(input),
    ),
    h("div", { class: "tool-label" }, failed ? "Error" : "Output"),
    h(
      "pre",
      { class: "tool-output" },
      failed
        ? String(part.errorText)
        : output === undefined
          ? "—"
          : pretty(output),
    ),
  );
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
