import { asRecord, invalidImport } from "./import-error.js";
import { ARBOR_JSONL_FORMAT } from "./arbor-jsonl.js";
import { isCodexRollout } from "./codex.js";
import { parseJsonDocument } from "./json-text.js";
import type { ImportFormat } from "./types.js";

/**
 * Names the format of a file by its structure: one JSON document (snapshot, ChatGPT export,
 * OpenAI or UIMessage array) or JSON Lines (tree JSONL, Pi, Claude Code, Codex). The file name breaks
 * ties (an empty array in `conversations.json` is a ChatGPT export). Throws `INVALID_IMPORT`
 * when nothing matches.
 */
export function detectFormat(text: string, fileName?: string): ImportFormat {
  const document = tryJson(text.trim());
  if (document.ok) {
    const found = documentFormat(document.value, fileName);
    if (found) return found;
    throw invalidImport(
      null,
      "unknown format: a JSON document that is no snapshot, ChatGPT export, OpenAI or UIMessage array",
    );
  }
  const lines = text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .slice(0, 20)
    .map((line) => tryJson(line));
  const first = lines[0]?.ok ? asRecord(lines[0].value) : null;
  if (first) {
    if (first.type === "session" && first.format === ARBOR_JSONL_FORMAT)
      return "arbor-jsonl";
    if (first.type === "session") return "pi";
    const records = lines.flatMap((line) =>
      line.ok && asRecord(line.value) ? [asRecord(line.value)!] : [],
    );
    if (
      records.some(
        (record) =>
          "parentUuid" in record ||
          (record.type === "summary" && "leafUuid" in record),
      )
    )
      return "claude-code";
    if (isCodexRollout(records, fileName)) return "codex";
  }
  // Not JSON Lines either: report where the JSON document breaks.
  if (!first && /^[[{]/.test(text.trim())) parseJsonDocument(text);
  if (!first) throw invalidImport("line 1", "neither JSON nor JSON Lines");
  throw invalidImport(
    null,
    "unknown JSONL format: no Arbor or Pi header, no Claude Code `parentUuid`, no Codex `session_meta` or `response_item`",
  );
}

// --- Internal helpers ---

type Attempt = { ok: true; value: unknown } | { ok: false; error: string };

function tryJson(text: string): Attempt {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

function documentFormat(
  value: unknown,
  fileName: string | undefined,
): ImportFormat | null {
  const object = asRecord(value);
  if (object?.format === "arbor.session") return "snapshot";
  if (object && "mapping" in object) return "chatgpt";
  const list = Array.isArray(value)
    ? value
    : Array.isArray(object?.messages)
      ? (object.messages as unknown[])
      : null;
  if (!list) return null;
  const first = asRecord(list[0]);
  if (!first)
    return list.length === 0 &&
      Array.isArray(value) &&
      /conversations\.json$/i.test(fileName ?? "")
      ? "chatgpt"
      : list.length === 0
        ? "ui-messages"
        : null;
  if (first.format === "arbor.session") return "snapshot";
  if ("mapping" in first) return "chatgpt";
  if (Array.isArray(first.parts)) return "ui-messages";
  if ("content" in first || "tool_calls" in first) return "openai";
  return null;
}
