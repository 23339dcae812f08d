import type { SessionInfo } from "../contracts/session-info.js";
import { ArborError } from "../errors/index.js";
import { copyIds, forkPath } from "./fork-path.js";
import {
  createdBlockEntries,
  defineCreatedBlocks,
} from "./created-blocks-copy.js";
import type { ManagerHost } from "./manager-backend.js";
import type { ForkOptions } from "./manager-options.js";
import { requireRow, sessionExists } from "./session-rows.js";
import { getOwner } from "./tenancy.js";

/**
 * A new session holding the source's raw path root → `atMessageId` and the overlays on it, so
 * its history equals the source's history at that message while the originals are kept. The
 * child keeps the source's owner.
 */
export async function forkSession(
  host: ManagerHost,
  sessionId: string,
  atMessageId: string,
  newName: string,
  options: ForkOptions,
): Promise<SessionInfo> {
  await requireRow(host.registry, sessionId);
  const source = await host.getSession(sessionId).exportSnapshot();
  const copied = forkPath(source, atMessageId, copyIds(options));
  if (!copied) {
    throw new ArborError(
      "MESSAGE_NOT_FOUND",
      `Message "${atMessageId}" not found in session "${sessionId}"`,
    );
  }
  const earlier =
    options.newId === undefined
      ? null
      : await earlierFork(host, options.newId, sessionId);
  if (earlier?.complete) return earlier.info;
  const owner = await getOwner(host.registry, sessionId);
  let info = earlier?.info;
  if (!info) {
    try {
      info = await host.create(newName, {
        ...(options.newId !== undefined ? { id: options.newId } : {}),
        parentSessionId: sessionId,
        ...(owner !== null ? { ownerId: owner } : {}),
      });
    } catch (error) {
      // An attempt racing this one made the row first: it is this fork (else SESSION_EXISTS).
      const raced =
        options.newId !== undefined &&
        (error as { code?: unknown }).code === "SESSION_EXISTS"
          ? await earlierFork(host, options.newId, sessionId)
          : null;
      if (!raced) throw error;
      if (raced.complete) return raced.info;
      info = raced.info;
    }
  }
  // The fork has the source's own blocks as they are now: the created ones defined again, and
  // the contents of these and the declared ones, written by the import as version 1.
  const created = createdBlockEntries(source);
  await defineCreatedBlocks(host.registry, info.id, created, info.created_at);
  // One bulk write of the copied records: no auto-compaction, no per-message events.
  try {
    await host.getSession(info.id).importSnapshot(
      {
        format: "arbor.session",
        version: 1,
        sessionId: info.id,
        exportedAt: new Date().toISOString(),
        ...copied,
        ...(source.contextBlocks !== undefined
          ? { contextBlocks: source.contextBlocks }
          : {}),
        ...(source.createdBlocks !== undefined
          ? { createdBlocks: source.createdBlocks }
          : {}),
      },
      { replace: false },
    );
  } catch (error) {
    // Ids derived from newId already stored: an attempt racing this one wrote this very copy
    // (the import is all or nothing), so the fork is complete.
    if (
      options.newId === undefined ||
      (error as { code?: unknown }).code !== "MESSAGE_EXISTS"
    )
      throw error;
  }
  await host.registry.touch(info.id, new Date().toISOString());
  return (await host.registry.get(info.id))!;
}

/**
 * A fork an earlier call with the same `newId` made: `null` when the id is free; the row and
 * whether its copy was written (the copy is one bulk write, so it holds messages or none); and
 * `SESSION_EXISTS` when the id holds anything but a fork of `sessionId`.
 */
async function earlierFork(
  host: ManagerHost,
  newId: string,
  sessionId: string,
): Promise<{ info: SessionInfo; complete: boolean } | null> {
  const info = await host.registry.get(newId);
  if (info === null) return null;
  if (info.parent_session_id !== sessionId) throw sessionExists(newId);
  const messages = await host.getSession(newId).countMessages();
  return { info, complete: messages > 0 };
}

/**
 * Ends a session with `end_reason = "compaction"` and starts a child session (same model, source
 * and owner) whose first message carries the summary. No LLM call; the old messages stay.
 */
export async function compactAndSplit(
  host: ManagerHost,
  sessionId: string,
  summary: string,
  newName: string | undefined,
): Promise<SessionInfo> {
  const old = await requireRow(host.registry, sessionId);
  await host.registry.update(sessionId, {
    end_reason: "compaction",
    updated_at: new Date().toISOString(),
  });
  const owner = await getOwner(host.registry, sessionId);
  const info = await host.create(newName ?? old.name ?? "Compacted", {
    parentSessionId: sessionId,
    ...(old.model !== null ? { model: old.model } : {}),
    ...(old.source !== null ? { source: old.source } : {}),
    ...(owner !== null ? { ownerId: owner } : {}),
  });
  await host.getSession(info.id).appendMessage({
    id: crypto.randomUUID(),
    role: "assistant",
    parts: [
      { type: "text", text: `[Context from previous session]\n\n${summary}` },
    ],
  });
  return (await host.registry.get(info.id))!;
}
