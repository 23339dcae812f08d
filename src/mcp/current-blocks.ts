import type { ContextBlock, Session } from "../session/index.js";
import { estimateStringTokens } from "../utils/index.js";

/**
 * The session's blocks with the content the store holds now. A Session loads its blocks once and
 * keeps them, so a block another process wrote since (another `arbor serve` behind the same load
 * balancer, an agent's own tool call) would read stale. Every write of a writable block records
 * a version in the store's block history, so its newest version is the current content.
 */
export async function currentBlocks(session: Session): Promise<ContextBlock[]> {
  const blocks = await session.loadContext();
  return Promise.all(
    blocks.map(async (block) => {
      if (!block.writable) return block;
      const newest = (await session.getContextBlockHistory(block.label)).at(-1);
      if (!newest || newest.content === block.content) return block;
      return {
        ...block,
        content: newest.content,
        tokens: estimateStringTokens(newest.content),
      };
    }),
  );
}
