import {
  ArborError,
  type SessionInfo,
  type SessionManager,
} from "../session/index.js";
import { stringOption, type ParsedCommand } from "./args.js";
import {
  openStore,
  storeLocation,
  type CliStore,
  type OpenStoreOptions,
} from "./store.js";
import { messageText } from "./text.js";
import type { TreeViewNode } from "./tree-view.js";

/** Opens the store named by `--db`/`--postgres`, runs `work`, and always closes it. */
export async function withStore<T>(
  command: ParsedCommand,
  work: (store: CliStore) => Promise<T>,
  options: OpenStoreOptions = {},
): Promise<T> {
  const store = await openStore(
    storeLocation({
      db: stringOption(command, "db"),
      postgres: stringOption(command, "postgres"),
    }),
    options,
  );
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** The session's row, or `SESSION_NOT_FOUND` naming the command that lists the ids. */
export async function requireSession(
  manager: SessionManager,
  id: string,
): Promise<SessionInfo> {
  const info = await manager.get(id);
  if (!info) {
    throw new ArborError(
      "SESSION_NOT_FOUND",
      `No session "${id}" (arbor sessions list shows the ids)`,
    );
  }
  return info;
}

/** Every message of a session (all branches), its active leaf and its overlays. */
export async function readTree(manager: SessionManager, id: string) {
  await requireSession(manager, id);
  const snapshot = await manager.exportSession(id);
  const leaf = await manager.getSession(id).getLatestLeaf();
  const nodes: TreeViewNode[] = snapshot.messages.map((entry) => ({
    id: entry.message.id,
    parentId: entry.parentId,
    role: entry.message.role,
    text: messageText(entry.message),
  }));
  return {
    nodes,
    activeLeafId: leaf?.id ?? null,
    compactions: snapshot.compactions,
  };
}

/**
 * `withStore` for the commands that change what is there: a SQLite file that does not exist is
 * `DATABASE_NOT_FOUND`, never created empty, and one without Arbor's tables is refused untouched.
 */
export function withExistingStore<T>(
  command: ParsedCommand,
  work: (store: CliStore) => Promise<T>,
): Promise<T> {
  return withStore(command, work, { access: "change" });
}

/**
 * `withStore` for the commands that only read: as `withExistingStore`, and the file is opened
 * read-only after a check that it needs no schema step (`arbor migrate --db` takes it), so a
 * reading command never writes.
 */
export function withReadStore<T>(
  command: ParsedCommand,
  work: (store: CliStore) => Promise<T>,
): Promise<T> {
  return withStore(command, work, { access: "read" });
}

/**
 * `withReadStore` for `arbor search`: checked the same way, but opened for writing, since a search
 * first brings the store's own full-text index up to date (docs/behavior/search.md).
 */
export function withSearchStore<T>(
  command: ParsedCommand,
  work: (store: CliStore) => Promise<T>,
): Promise<T> {
  return withStore(command, work, { access: "search" });
}

/** Ids of the sessions without an owner, in list order; at most `limit` when given. */
export async function unownedSessions(
  manager: SessionManager,
  limit = Infinity,
): Promise<string[]> {
  const found: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await manager.listPage({
      limit: 100,
      ...(cursor ? { cursor } : {}),
    });
    for (const info of page.sessions) {
      if ((await manager.getOwner(info.id)) === null) found.push(info.id);
      if (found.length >= limit) return found;
    }
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return found;
}

/** How many sessions have an owner; counting stops at `limit` when given. */
export async function countOwnedSessions(
  manager: SessionManager,
  limit = Infinity,
): Promise<number> {
  let owned = 0;
  let cursor: string | undefined;
  do {
    const page = await manager.listPage({
      limit: 100,
      ...(cursor ? { cursor } : {}),
    });
    for (const info of page.sessions) {
      if ((await manager.getOwner(info.id)) !== null) owned++;
      if (owned >= limit) return owned;
    }
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return owned;
}
