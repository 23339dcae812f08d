/*
 * Created blocks carried by a snapshot or a fork (`SessionSnapshot.createdBlocks`): their
 * definitions become config entries of the new session again, before its import writes their
 * contents (`contextBlocks`). Loaded with the manager's occasional operations only.
 */
import type { SessionRegistry } from "../contracts/registry.js";
import type {
  CreatedBlockDefinition,
  SessionSnapshot,
} from "../contracts/session-info.js";
import { ArborError } from "../errors/index.js";
import { estimateStringTokens } from "../tokens/estimate-tokens.js";
import {
  CREATED_BLOCK_PREFIX,
  LABEL,
  MAX_DESCRIPTION,
} from "./created-blocks.js";

/**
 * The snapshot's created-block definitions, checked as `createContextBlock()` checks them (a bad
 * one throws `INVALID_SNAPSHOT`, a content above its `maxTokens` `BLOCK_TOO_LARGE`), so an
 * import refuses them before anything is written. `[]` for older snapshots.
 */
export function createdBlockEntries(
  snapshot: Pick<SessionSnapshot, "createdBlocks" | "contextBlocks">,
): Array<[label: string, definition: CreatedBlockDefinition]> {
  const { createdBlocks } = snapshot;
  if (createdBlocks === undefined) return [];
  if (
    typeof createdBlocks !== "object" ||
    createdBlocks === null ||
    Array.isArray(createdBlocks)
  )
    throw invalidDefinition("`createdBlocks` must be an object keyed by label");
  return Object.entries(createdBlocks).map(([label, definition]) => {
    if (!LABEL.test(label))
      throw invalidDefinition(
        `created block label ${JSON.stringify(label)} is not 1 to 64 letters, digits, "-" or "_"`,
      );
    if (typeof definition !== "object" || definition === null)
      throw invalidDefinition(`created block "${label}" needs an object`);
    const { description, maxTokens } = definition;
    if (
      description !== undefined &&
      (typeof description !== "string" || description.length > MAX_DESCRIPTION)
    )
      throw invalidDefinition(
        `created block "${label}": description must be a string of at most ${MAX_DESCRIPTION} characters`,
      );
    if (
      maxTokens !== undefined &&
      (typeof maxTokens !== "number" ||
        !Number.isInteger(maxTokens) ||
        maxTokens <= 0)
    )
      throw invalidDefinition(
        `created block "${label}": maxTokens must be a positive integer`,
      );
    const content = snapshot.contextBlocks?.[label];
    if (maxTokens !== undefined && typeof content === "string") {
      const tokens = estimateStringTokens(content);
      if (tokens > maxTokens)
        throw new ArborError(
          "BLOCK_TOO_LARGE",
          `Block "${label}" exceeds maxTokens: ${tokens} > ${maxTokens}`,
        );
    }
    return [
      label,
      {
        ...(description !== undefined && description !== ""
          ? { description }
          : {}),
        ...(maxTokens !== undefined ? { maxTokens } : {}),
      },
    ];
  });
}

/** Stores the definitions as the session's `block:<label>` entries (the same value on a retry). */
export async function defineCreatedBlocks(
  registry: SessionRegistry,
  sessionId: string,
  entries: ReadonlyArray<[string, CreatedBlockDefinition]>,
  createdAt: string,
): Promise<void> {
  for (const [label, definition] of entries)
    await registry.setConfig(
      sessionId,
      CREATED_BLOCK_PREFIX + label,
      JSON.stringify({ ...definition, createdAt }),
    );
}

function invalidDefinition(detail: string): ArborError {
  return new ArborError("INVALID_SNAPSHOT", `[arbor] A snapshot's ${detail}`);
}
