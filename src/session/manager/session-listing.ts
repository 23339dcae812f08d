import type { SessionListing, SessionRegistry } from "../contracts/registry.js";
import type { ListSessionsOptions } from "./manager-options.js";
import { nextCursor, registryQuery } from "./session-rows.js";
import { getOwner, listMetadata } from "./tenancy.js";

/**
 * `listPage()` with each row's owner, metadata, message count and child count: one registry call
 * when the registry has `listDetailed`, else the page and then, per row, its config, the
 * session's own COUNT (`countMessages`) and its children, the reads the manager's single-session
 * methods make.
 */
export async function listDetailedPage(
  registry: SessionRegistry,
  options: ListSessionsOptions,
  countMessages: (sessionId: string) => Promise<number>,
): Promise<{
  sessions: Required<SessionListing>[];
  nextCursor: string | null;
}> {
  const { query, limit } = registryQuery(options);
  const listed: SessionListing[] = registry.listDetailed
    ? await registry.listDetailed(query)
    : await Promise.all(
        (await registry.list(query)).map(async (info) => {
          const [ownerId, metadata, messageCount] = await Promise.all([
            getOwner(registry, info.id),
            listMetadata(registry, info.id),
            countMessages(info.id),
          ]);
          return { info, ownerId, metadata, messageCount };
        }),
      );
  // A registry of its own may leave the children uncounted: counted here, per row.
  const sessions = await Promise.all(
    listed.map(async (listing) =>
      listing.childCount !== undefined
        ? { ...listing, childCount: listing.childCount }
        : {
            ...listing,
            childCount: (
              await registry.list({
                parentSessionId: listing.info.id,
                ...(options.ownerId !== undefined
                  ? { ownerId: options.ownerId }
                  : {}),
              })
            ).length,
          },
    ),
  );
  return {
    sessions,
    nextCursor: nextCursor(
      sessions.map((listing) => listing.info),
      limit,
    ),
  };
}
