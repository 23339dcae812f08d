/**
 * `manager.search()` results placed in their sessions (docs/search.md): every hit carries its
 * session's name, and with `context` the turns around it on its branch.
 */
import type { SessionTree } from "../state/session-tree.js";
import type { SessionRegistry } from "../contracts/registry.js";
import type { SessionInfo } from "../contracts/session-info.js";
import { hitNeighbours } from "../embeddings/hit-neighbours.js";
import type { SearchHit } from "../embeddings/types.js";

/**
 * Adds `sessionName` to every hit, and `context` with `count` > 0. A session gone from the
 * registry since the search keeps its hits without a name or neighbours.
 */
export async function placeManagerHits(
  registry: SessionRegistry,
  treeOf: (sessionId: string) => Promise<SessionTree>,
  hits: SearchHit[],
  count: number,
): Promise<SearchHit[]> {
  const bySession = new Map<string, number[]>();
  hits.forEach((hit, index) => {
    const sessionId = hit.sessionId ?? "";
    bySession.set(sessionId, [...(bySession.get(sessionId) ?? []), index]);
  });
  const out = [...hits];
  const infos = await sessionInfos(registry, [...bySession.keys()]);
  for (const [sessionId, indexes] of bySession) {
    const info = infos.get(sessionId);
    if (info === undefined) continue;
    for (const index of indexes)
      out[index] = { ...out[index]!, sessionName: info.name };
    if (count === 0) continue;
    const around = await hitNeighbours(
      await treeOf(sessionId),
      indexes.map((index) => hits[index]!),
      count,
    );
    indexes.forEach((index, at) => {
      out[index] = { ...out[index]!, context: around[at]! };
    });
  }
  return out;
}

/** The registry rows of `ids`, read together when the registry can (`getMany`). */
async function sessionInfos(
  registry: SessionRegistry,
  ids: readonly string[],
): Promise<Map<string, SessionInfo>> {
  const rows = registry.getMany
    ? await registry.getMany(ids)
    : (await Promise.all(ids.map(async (id) => registry.get(id)))).filter(
        (info): info is SessionInfo => info !== null,
      );
  return new Map(rows.map((info) => [info.id, info]));
}
