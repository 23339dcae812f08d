import type {
  BackendSearchIndex,
  SearchIndexSettings,
} from "../../session/contracts/backend.js";
import { decodeMessage } from "../../session/messages/message-codec.js";
import { isToolPart } from "../../session/messages/tool-parts.js";
import type { MemoryStore } from "./memory-store.js";
import { indexedText } from "./memory-writes.js";

/**
 * The search-index settings of an in-memory store (docs/behavior/search.md#tool-outputs): a flag
 * on the store, and a change re-indexes every row that holds a tool call, synchronously, so no
 * search sees a mix.
 */
export function memorySearchIndex(store: MemoryStore): BackendSearchIndex {
  return {
    settings: () => Promise.resolve({ toolOutputs: store.toolOutputs }),
    configure: (settings: SearchIndexSettings) => {
      const toolOutputs = settings.toolOutputs;
      if (store.toolOutputs === toolOutputs)
        return Promise.resolve({
          settings: { toolOutputs },
          changed: false,
          reindexed: 0,
        });
      store.toolOutputs = toolOutputs;
      let reindexed = 0;
      for (const data of store.sessions.values()) {
        for (const row of data.ordered) {
          const message = decodeMessage(row.json);
          if (!message?.parts.some(isToolPart)) continue;
          row.indexed = indexedText(store, message, row.text);
          data.textIndex.changed(row);
          reindexed++;
        }
      }
      return Promise.resolve({
        settings: { toolOutputs },
        changed: true,
        reindexed,
      });
    },
  };
}
