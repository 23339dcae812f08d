import type { ChangeType } from "./contracts/changes.js";
import type { SessionProvider } from "./contracts/provider.js";
import { ChangeFeed } from "./core/change-feed.js";

/**
 * Gives a provider without `watchChanges` an in-process change feed: the writes made through
 * this process's Sessions over the same store publish their events after they complete
 * (docs/behavior/events-and-audit.md, "Change feed"). Writes by other processes, or straight
 * through the provider, are not seen. `provider` is the Session's own view, so it is extended in
 * place; a provider with `watchChanges` is returned as it is.
 */
export function withLocalChangeFeed(
  provider: SessionProvider,
): SessionProvider {
  if (typeof provider.watchChanges === "function") return provider;
  const store = provider.storeIdentity ?? provider;
  const sessionId = provider.sessionId ?? "";
  const publish = (type: ChangeType, ids: string[]) =>
    localFeed(store).publish({
      type,
      sessionId,
      ids,
      at: new Date().toISOString(),
    });
  const existing = async (ids: readonly string[]) => {
    const found = await Promise.all(ids.map((id) => provider.getMessage(id)));
    return ids.filter((_, index) => found[index] !== null);
  };
  const { appendMessage, updateMessage, deleteMessages, clearMessages } =
    provider;
  const { addCompaction, deleteCompaction, importRecords } = provider;
  provider.appendMessage = async (message, parentId) => {
    const inserted = await appendMessage(message, parentId);
    if (inserted !== false) publish("append", [message.id]);
    return inserted;
  };
  provider.updateMessage = async (message) => {
    const present = await existing([message.id]);
    await updateMessage(message);
    if (present.length > 0) publish("update", present);
  };
  provider.deleteMessages = async (ids) => {
    const present = await existing([...new Set(ids)]);
    await deleteMessages(ids);
    if (present.length > 0) publish("delete", present);
  };
  provider.clearMessages = async () => {
    await clearMessages();
    publish("clear", []);
  };
  provider.addCompaction = async (summary, from, to, meta) => {
    const overlay = await addCompaction(summary, from, to, meta);
    publish("compaction", [overlay.id]);
    return overlay;
  };
  if (deleteCompaction) {
    provider.deleteCompaction = async (id) => {
      const removed = await deleteCompaction(id);
      if (removed) publish("compaction", [id]);
      return removed;
    };
  }
  if (importRecords) {
    provider.importRecords = async (records) => {
      await importRecords(records);
      publish(
        "import",
        records.messages.map(({ message }) => message.id),
      );
    };
  }
  provider.watchChanges = (listener, options = {}) =>
    localFeed(store).add(listener, options.allSessions ? null : sessionId);
  return provider;
}

// --- Internal helpers ---

const localFeeds = new WeakMap<object, ChangeFeed>();

function localFeed(store: object): ChangeFeed {
  let feed = localFeeds.get(store);
  if (!feed) {
    feed = new ChangeFeed();
    localFeeds.set(store, feed);
  }
  return feed;
}
