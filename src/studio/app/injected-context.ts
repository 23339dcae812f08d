/**
 * Injected context: a user message nobody typed (an `AGENTS.md`, the environment, a slash
 * command's wrapper, a local command's output), which an import marks with
 * `metadata.injectedContext = "<kind>"` (src/formats/injected-context.ts; the studio is a bundle
 * of its own, so it reads the mark here). The transcript folds such a message to one line.
 */
import type { Message } from "./api-types.js";

/** The kind of injected context the message is marked as, or `null`. */
export function injectedContextKind(message: Message): string | null {
  const metadata = message.metadata;
  if (typeof metadata !== "object" || metadata === null) return null;
  const kind = (metadata as Record<string, unknown>).injectedContext;
  return typeof kind === "string" && kind !== "" ? kind : null;
}

/** How many lines of text the message holds: what its folded line says. */
export function textLines(message: Message): number {
  return message.parts.reduce(
    (lines, part) =>
      part.type === "text" && typeof part.text === "string"
        ? lines + part.text.split("\n").length
        : lines,
    0,
  );
}
