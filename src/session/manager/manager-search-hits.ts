/**
 * `manager.search()` results placed in their sessions (docs/search.md): every hit carries its
 * session's name, and with `context` the turns around it on its branch.
 */
import type { SessionTree } from "../core/session-tree.js";
import type { SessionRegistry } from "../contracts/registry.js";
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
  for (const [sessionId, indexes] of bySession) {
    const info = await registry.get(sessionId);
    if (info === null) continue;
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
