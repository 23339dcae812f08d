import type { SessionListing, SessionRegistry } from "../contracts/registry.js";
import type { ListSessionsOptions } from "./manager-options.js";
import { nextCursor, registryQuery } from "./session-rows.js";
import { getOwner, listMetadata } from "./tenancy.js";

/**
 * `listPage()` with each row's owner, metadata and message count: one registry call when the
 * registry has `listDetailed`, else the page and then, per row, its config and the session's
 * own COUNT (`countMessages`), the reads the manager's single-session methods make.
 */
export async function listDetailedPage(
  registry: SessionRegistry,
  options: ListSessionsOptions,
  countMessages: (sessionId: string) => Promise<number>,
): Promise<{ sessions: SessionListing[]; nextCursor: string | null }> {
  const { query, limit } = registryQuery(options);
  const sessions = registry.listDetailed
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
  return {
    sessions,
    nextCursor: nextCursor(
      sessions.map((listing) => listing.info),
      limit,
    ),
  };
}
