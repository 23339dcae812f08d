import { ArborTypeError } from "../errors/index.js";

/**
 * The argument rule of `addCompaction()`, shared by every backend so they all reject the same
 * calls the same way: `summary`, `fromMessageId` and `toMessageId` must be non-empty strings.
 * Nothing more is checked on purpose: an overlay may name messages that do not exist yet, or a
 * start after its end; reads ignore such overlays until they fit a path.
 *
 * Throws a `TypeError` with code `INVALID_ARGUMENT` naming the first bad argument. `component`
 * (`"sqlite"`, `"postgres"`, …) is shown in the message. Exported for custom providers.
 */
export function assertCompactionArguments(
  summary: unknown,
  fromMessageId: unknown,
  toMessageId: unknown,
  component?: string,
): void {
  const argumentsByName = [
    ["summary", summary],
    ["fromMessageId", fromMessageId],
    ["toMessageId", toMessageId],
  ] as const;
  for (const [name, value] of argumentsByName) {
    if (typeof value !== "string" || value.length === 0) {
      const prefix = component ? `[arbor] [${component}]` : "[arbor]";
      throw new ArborTypeError(
        "INVALID_ARGUMENT",
        `${prefix} addCompaction() needs a non-empty string \`${name}\``,
      );
    }
  }
}
