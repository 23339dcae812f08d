import type {
  GetOperation,
  Item,
  ListNamespacesOperation,
  MatchCondition,
  Operation,
  OperationResults,
  PutOperation,
  SearchItem,
  SearchOperation,
} from "@langchain/langgraph-checkpoint";
import {
  isArborError,
  SessionManager,
  type Backend,
  type SessionRegistry,
} from "../session/index.js";
import { BaseStore, getTextAtPath, validateNamespace } from "./_checkpoint.js";
import { matchesFilter } from "./store-filter.js";

/** Options of `new ArborStore()`. */
export interface ArborStoreOptions {
  /**
   * The prefix of the Arbor sessions the store keeps (default `"langgraph-store"`): its catalog
   * is the session of that id, each namespace the session `<prefix>:<namespace>`.
   */
  sessionPrefix?: string;
}

/**
 * LangGraph's long-term memory (`BaseStore`) over any Arbor backend (docs/langgraph.md): each
 * namespace is an Arbor session, each item a config entry of it holding the value as JSON, and a
 * message holding the item's text, so `search({ query })` is Arbor's ranked text search (hybrid
 * after `store.manager.withEmbeddings()`), and the studio shows the items.
 *
 * @example
 * ```ts
 * import { ArborStore } from "arbor-memory/langgraph";
 * import { memoryBackend } from "arbor-memory/session";
 *
 * const store = new ArborStore(memoryBackend());
 * await store.put(["users", "ada"], "food", { text: "likes green tea" });
 * const hits = await store.search(["users"], { query: "tea" });
 * ```
 */
export class ArborStore extends BaseStore {
  /** The manager the namespaces are written through: search, embed or erase with it. */
  readonly manager: SessionManager;
  private readonly registry: SessionRegistry;
  private readonly backend: Backend;
  private readonly prefix: string;
  private readonly registered = new Map<string, Promise<void>>();

  constructor(backend: Backend, options: ArborStoreOptions = {}) {
    super();
    this.backend = backend;
    this.manager = SessionManager.create(backend);
    this.registry = backend.registry;
    this.prefix = options.sessionPrefix ?? "langgraph-store";
  }

  async batch<Op extends Operation[]>(
    operations: Op,
  ): Promise<OperationResults<Op>> {
    const results: unknown[] = [];
    // In order: a get after a put in the same batch sees the put.
    for (const operation of operations) {
      if ("value" in operation) results.push(await this.putItem(operation));
      else if ("namespacePrefix" in operation)
        results.push(await this.searchItems(operation));
      else if ("key" in operation) results.push(await this.getItem(operation));
      else results.push(await this.listNamespacesOf(operation));
    }
    return results as OperationResults<Op>;
  }

  // --- Internal helpers ---

  private async getItem(operation: GetOperation): Promise<Item | null> {
    checkNamespace(operation.namespace);
    const text = await this.registry.getConfig(
      this.sessionOf(operation.namespace),
      itemKey(operation.key),
    );
    return text === null
      ? null
      : itemOf(operation.namespace, operation.key, text);
  }

  private async putItem(operation: PutOperation): Promise<void> {
    const { namespace, key, value } = operation;
    checkNamespace(namespace);
    const sessionId = this.sessionOf(namespace);
    await this.register(namespace);
    const session = this.manager.getSession(sessionId);
    if (value === null) {
      // A provider that cannot delete a config entry gets a tombstone, read as no item.
      const provider = this.backend.session(sessionId);
      if (provider.setConfig) await provider.setConfig(itemKey(key), null);
      else await this.registry.setConfig(sessionId, itemKey(key), DELETED);
      await session.deleteMessages([messageId(key)]);
      return;
    }
    const now = new Date().toISOString();
    const previous = await this.registry.getConfig(sessionId, itemKey(key));
    const createdAt =
      previous === null || previous === DELETED
        ? now
        : (JSON.parse(previous) as StoredItem).createdAt;
    const stored: StoredItem = { value, createdAt, updatedAt: now };
    await this.registry.setConfig(
      sessionId,
      itemKey(key),
      JSON.stringify(stored),
    );
    const text = indexedText(value, operation.index);
    if (text === "") await session.deleteMessages([messageId(key)]);
    else
      await session.upsertMessage(
        {
          id: messageId(key),
          role: "user",
          parts: [{ type: "text", text }],
          metadata: { langgraph: { key } },
        },
        null,
      );
  }

  private async searchItems(operation: SearchOperation): Promise<SearchItem[]> {
    const { namespacePrefix, filter, query } = operation;
    const limit = operation.limit ?? 10;
    const offset = operation.offset ?? 0;
    const namespaces = (await this.namespaces()).filter((namespace) =>
      startsWith(namespace, namespacePrefix),
    );
    if (namespaces.length === 0) return [];
    const matching = (item: Item) =>
      filter === undefined || matchesFilter(item.value, filter);
    if (query === undefined || query.trim() === "") {
      const items = (
        await Promise.all(namespaces.map((ns) => this.itemsOf(ns)))
      ).flat();
      // Oldest first, as LangGraph's InMemoryStore lists them.
      items.sort(
        (a, b) =>
          a.createdAt.getTime() - b.createdAt.getTime() ||
          (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
      );
      return items.filter(matching).slice(offset, offset + limit);
    }
    const bySession = new Map(
      namespaces.map((namespace) => [this.sessionOf(namespace), namespace]),
    );
    const hits = await this.manager.search(query, {
      sessionIds: [...bySession.keys()],
      limit: Math.max(100, (offset + limit) * 4),
    });
    const found: SearchItem[] = [];
    for (const [rank, hit] of hits.entries()) {
      const namespace = bySession.get(hit.sessionId ?? "");
      if (namespace === undefined || !hit.id.startsWith(MESSAGE_PREFIX))
        continue;
      const item = await this.getItem({
        namespace,
        key: hit.id.slice(MESSAGE_PREFIX.length),
      });
      if (item === null || !matching(item)) continue;
      found.push({ ...item, score: hit.score ?? 1 / (rank + 1) });
    }
    return found.slice(offset, offset + limit);
  }

  private async listNamespacesOf(
    operation: ListNamespacesOperation,
  ): Promise<string[][]> {
    let namespaces = (await this.namespaces()).filter((namespace) =>
      (operation.matchConditions ?? []).every((condition) =>
        matchesCondition(condition, namespace),
      ),
    );
    if (operation.maxDepth !== undefined) {
      const unique = new Map<string, string[]>();
      for (const namespace of namespaces) {
        const cut = namespace.slice(0, operation.maxDepth);
        unique.set(JSON.stringify(cut), cut);
      }
      namespaces = [...unique.values()];
    }
    namespaces.sort((a, b) => compareNamespaces(a, b));
    const offset = operation.offset ?? 0;
    return namespaces.slice(offset, offset + (operation.limit ?? 100));
  }

  /** Every namespace that ever held an item, from the catalog. */
  private async namespaces(): Promise<string[][]> {
    const entries = await this.registry.listConfig(
      this.prefix,
      NAMESPACE_PREFIX,
    );
    return Object.values(entries).map((text) => JSON.parse(text) as string[]);
  }

  private async itemsOf(namespace: string[]): Promise<Item[]> {
    const entries = await this.registry.listConfig(
      this.sessionOf(namespace),
      ITEM_PREFIX,
    );
    return Object.entries(entries).flatMap(([key, text]) => {
      const item = itemOf(
        namespace,
        decodeURIComponent(key.slice(ITEM_PREFIX.length)),
        text,
      );
      return item === null ? [] : [item];
    });
  }

  /** The namespace's session and its catalog entry, once per store object. */
  private register(namespace: string[]): Promise<void> {
    const sessionId = this.sessionOf(namespace);
    let registering = this.registered.get(sessionId);
    if (registering === undefined) {
      registering = (async () => {
        await this.ensureSession(this.prefix, "LangGraph store");
        await this.ensureSession(sessionId, namespace.join(" / "));
        await this.registry.setConfig(
          this.prefix,
          `${NAMESPACE_PREFIX}${encodeURIComponent(JSON.stringify(namespace))}`,
          JSON.stringify(namespace),
        );
      })();
      this.registered.set(sessionId, registering);
      registering.catch(() => this.registered.delete(sessionId));
    }
    return registering;
  }

  private async ensureSession(id: string, name: string): Promise<void> {
    if (await this.manager.get(id)) return;
    await this.manager.create(name, { id }).catch((error: unknown) => {
      if (!isArborError(error) || error.code !== "SESSION_EXISTS") throw error;
    });
  }

  private sessionOf(namespace: readonly string[]): string {
    return `${this.prefix}:${namespace.map(encodeURIComponent).join("/")}`;
  }
}

// --- Internal helpers ---

const ITEM_PREFIX = "langgraph:item:";
const NAMESPACE_PREFIX = "langgraph:namespace:";
const MESSAGE_PREFIX = "item:";
/** What a deleted item's entry holds where the provider cannot delete an entry. */
const DELETED = "null";

interface StoredItem {
  value: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

function itemKey(key: string): string {
  return `${ITEM_PREFIX}${encodeURIComponent(key)}`;
}

function messageId(key: string): string {
  return `${MESSAGE_PREFIX}${key}`;
}

/** The stored item, or `null` for a tombstone. */
function itemOf(namespace: string[], key: string, text: string): Item | null {
  if (text === DELETED) return null;
  const stored = JSON.parse(text) as StoredItem;
  return {
    namespace,
    key,
    value: stored.value,
    createdAt: new Date(stored.createdAt),
    updatedAt: new Date(stored.updatedAt),
  };
}

/**
 * LangGraph's namespace rules (non-empty labels without periods), as its `InMemoryStore` applies
 * them to a batch: `put()` itself refuses a `langgraph` root before the batch.
 */
function checkNamespace(namespace: string[]): void {
  validateNamespace(namespace, { allowReservedRoot: true });
}

/** The text search indexes: the `index` fields, or every string of the value. */
function indexedText(
  value: Record<string, unknown>,
  index: false | string[] | undefined,
): string {
  if (index === false) return "";
  if (index === undefined) return stringsOf(value).join("\n");
  return index.flatMap((path) => getTextAtPath(value, path)).join("\n");
}

function stringsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  if (typeof value === "object" && value !== null)
    return Object.values(value).flatMap(stringsOf);
  return [];
}

function startsWith(
  namespace: readonly string[],
  prefix: readonly string[],
): boolean {
  return (
    prefix.length <= namespace.length &&
    prefix.every((label, index) => namespace[index] === label)
  );
}

function matchesCondition(
  condition: MatchCondition,
  namespace: readonly string[],
): boolean {
  const { path } = condition;
  if (path.length > namespace.length) return false;
  const offset =
    condition.matchType === "suffix" ? namespace.length - path.length : 0;
  return path.every(
    (label, index) => label === "*" || namespace[offset + index] === label,
  );
}

function compareNamespaces(a: string[], b: string[]): number {
  const left = a.join(".");
  const right = b.join(".");
  return left < right ? -1 : left > right ? 1 : 0;
}
