/**
 * The search pipeline's steps that read sessions (search-pipeline.ts): ranked candidates
 * resolved to their text and branch position, and hits placed in their sessions (the session's
 * name, the turns around each hit). One session is the case of a registry with one session.
 */
import type { SessionProvider } from "../contracts/provider.js";
import type { SessionMessage, StoredCompaction } from "../contracts/types.js";
import { searchableText } from "../messages/message-codec.js";
import { hitNeighbours } from "./hit-neighbours.js";
import type { RecallItem, ResolvedItem } from "./recall.js";
import type {
  RankingScope,
  SearchSpace,
  SpaceSession,
} from "./search-space.js";
import type { SearchHit } from "./types.js";

/**
 * Content and branch position of ranked candidates, in their order; `null` for one whose row or
 * session is gone. The sessions are read a few at a time (`RESOLVE_CONCURRENCY`).
 */
export async function resolveInSessions(
  space: SearchSpace,
  covered: RankingScope,
  items: RecallItem[],
): Promise<Array<ResolvedItem | null>> {
  const bySession = groupBy(items, (item) => item.sessionId);
  const sessions = await space.sessions([...bySession.keys()]);
  const resolved = new Map<RecallItem, ResolvedItem | null>();
  await eachConcurrently(
    [...bySession],
    RESOLVE_CONCURRENCY,
    async ([sessionId, group]) => {
      const session = sessions.get(sessionId);
      if (!session) return;
      const { provider, tree } = await session.ready();
      // Read after the text ranking: its index catch-up leaves a kept path valid (sql store).
      const active = covered.active ?? (await tree.pathIdSet());
      const messages = await readMessages(
        provider,
        group.filter((i) => i.kind === "message").map((i) => i.id),
      );
      const overlays =
        covered.overlays ??
        (group.some((i) => i.kind === "summary")
          ? new Map((await provider.getCompactions()).map((o) => [o.id, o]))
          : new Map<string, StoredCompaction>());
      for (const item of group)
        resolved.set(
          item,
          item.kind === "summary"
            ? resolveOverlay(overlays.get(item.id), active)
            : resolveMessage(messages.get(item.id) ?? null, active),
        );
    },
  );
  return items.map((item) => resolved.get(item) ?? null);
}

/**
 * Hits placed in their sessions: across sessions each carries its session's name; with
 * `context` > 0, the turns around it on its branch. A session gone since the search keeps its
 * hits without a name or neighbours.
 */
export async function placeHits(
  space: SearchSpace,
  hits: SearchHit[],
  context: number,
): Promise<SearchHit[]> {
  if (hits.length === 0 || (context === 0 && !space.acrossSessions))
    return hits;
  const bySession = groupBy(
    hits.map((hit, index) => ({ hit, index })),
    ({ hit }) => hit.sessionId ?? "",
  );
  const sessions = await space.sessions([...bySession.keys()]);
  const out = [...hits];
  for (const [sessionId, group] of bySession) {
    const session: SpaceSession | undefined = sessions.get(sessionId);
    if (session === undefined) continue;
    if (space.acrossSessions)
      for (const { index } of group)
        out[index] = { ...out[index]!, sessionName: session.name };
    if (context === 0) continue;
    const around = await hitNeighbours(
      (await session.ready()).tree,
      group.map(({ hit }) => hit),
      context,
    );
    group.forEach(({ index }, at) => {
      out[index] = { ...out[index]!, context: around[at]! };
    });
  }
  return out;
}

// --- Internal helpers ---

/** The stored messages with these ids, by id. */
async function readMessages(
  provider: SessionProvider,
  ids: string[],
): Promise<Map<string, SessionMessage>> {
  const found = provider.getMessagesByIds
    ? await provider.getMessagesByIds(ids)
    : await Promise.all(ids.map(async (id) => provider.getMessage(id)));
  const out = new Map<string, SessionMessage>();
  found.forEach((message, i) => {
    if (message) out.set(ids[i]!, message);
  });
  return out;
}

/** A message as a result, or `null` when it is gone. */
function resolveMessage(
  message: SessionMessage | null,
  active: ReadonlySet<string>,
): ResolvedItem | null {
  if (!message) return null;
  // A hit found by meaning alone has no text-search row: its time is the message's own, if any.
  const createdAt =
    message.createdAt instanceof Date &&
    !Number.isNaN(message.createdAt.getTime())
      ? message.createdAt.toISOString()
      : undefined;
  return {
    role: message.role,
    content: searchableText(message),
    ...(createdAt !== undefined ? { createdAt } : {}),
    onActiveBranch: active.has(message.id),
  };
}

/** An overlay as a result (role `"summary"`), or `null` when it is gone. */
function resolveOverlay(
  overlay: StoredCompaction | undefined,
  active: ReadonlySet<string>,
): ResolvedItem | null {
  if (!overlay) return null;
  return {
    role: "summary",
    content: overlay.summary,
    ...(overlay.createdAt ? { createdAt: overlay.createdAt } : {}),
    onActiveBranch:
      active.has(overlay.fromMessageId) && active.has(overlay.toMessageId),
  };
}

/** Values grouped by key, groups and values in first-seen order. */
function groupBy<T>(values: readonly T[], key: (value: T) => string) {
  const groups = new Map<string, T[]>();
  for (const value of values) {
    const group = groups.get(key(value));
    if (group) group.push(value);
    else groups.set(key(value), [value]);
  }
  return groups;
}

/**
 * Sessions whose candidates are resolved at once: over a pool their reads overlap (each is a
 * branch walk and a message read, about 2.5 ms on PostgreSQL, so 20 sessions in a row cost
 * 50 ms); a synchronous store reads them in turn. A pool's default size is 10.
 */
const RESOLVE_CONCURRENCY = 8;

/** `work` for every value, at most `limit` at a time; rejects with the first failure. */
async function eachConcurrently<T>(
  values: readonly T[],
  limit: number,
  work: (value: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < values.length) await work(values[next++]!);
  };
  await Promise.all(
    Array.from({ length: Math.min(limit, values.length) }, worker),
  );
}
