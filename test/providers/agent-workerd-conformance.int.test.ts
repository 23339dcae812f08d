// The full conformance suite against AgentSessionProvider running inside workerd: every provider
// call crosses JSON to a Durable Object that runs it on its own SQLite (`ctx.storage.sql` as the
// `sql` tag, no `transaction()`: the shape of an Agents SDK `Agent`). Each `create()` addresses a
// new Durable Object, so its storage is fresh (the isolation rule).
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type {
  BlockHistoryStore,
  BlockVersion,
} from "../../src/session/contracts/block-history.js";
import type { WritableContextProvider } from "../../src/session/contracts/context-provider.js";
import type {
  ChangeEvent,
  ChangeListener,
  Unsubscribe,
  WatchChangesOptions,
} from "../../src/session/contracts/changes.js";
import { ArborError, ArborTypeError } from "../../src/session/errors/index.js";
import type { ArborErrorCode } from "../../src/session/errors/index.js";
import type {
  ImportRecords,
  PathEntry,
  MessageWrite,
  SessionProvider,
  WriteMessagesOptions,
  WriteMessagesResult,
  StoredMessageRecord,
} from "../../src/session/contracts/provider.js";
import type {
  CompactionMeta,
  HistoryRowStat,
  RecentHistoryResult,
  SearchResult,
  TextSearchOptions,
  SessionMessage,
  StoredCompaction,
} from "../../src/session/contracts/types.js";
import { runProviderConformance } from "../../src/testing/index.js";
import { parseSeqPosition } from "../../src/session/state/change-feed.js";
import { SRC, transpileGraph } from "./support/transpile-graph.js";

// The deep-path case makes ~10,000 sequential calls over RPC (about 25-40 s on a 2-core machine).
vi.setConfig({ testTimeout: 120_000 });

const ENTRY = new URL("backends/sql/index.ts", SRC);

const WORKER = `
import { AgentSessionProvider } from "./backends/sql/index.js";
import { AgentContextProvider } from "./backends/sql/sql-context-provider.js";
import { AgentBlockHistory } from "./backends/sql/sql-block-history.js";

export class Store {
  constructor(ctx) { this.storage = ctx.storage.sql; }
  sql(strings, ...values) { return [...this.storage.exec(strings.join("?"), ...values)]; }

  async fetch(request) {
    const call = await request.json();
    const args = call.args;
    for (const index of call.undefinedAt) args[index] = undefined;
    if (call.target === "watch") return Response.json({ ok: true, value: this.watch(call) });
    try {
      const target =
        call.target === "context" ? new AgentContextProvider(this, call.key)
        : call.target === "blocks" ? new AgentBlockHistory(this, call.sessionId)
        : new AgentSessionProvider(this, call.sessionId);
      const value = await target[call.method](...args);
      return Response.json({ ok: true, value });
    } catch (error) {
      return Response.json({
        ok: false,
        error: {
          message: String(error?.message ?? error),
          name: error?.name,
          code: error?.code,
          typeError: error instanceof TypeError,
          marked: error?.[Symbol.for("arbor.error")] === true,
        },
      });
    }
  }
}

// The change feed inside the isolate: events are buffered here and drained over RPC.
Store.prototype.watch = function (call) {
  this.watches ??= new Map();
  const [id, options] = call.args;
  if (call.method === "start") {
    const events = [];
    const provider = new AgentSessionProvider(this, call.sessionId);
    const stop = provider.watchChanges((event) => void events.push(event), options);
    this.watches.set(id, { events, stop });
    return [];
  }
  const entry = this.watches.get(id);
  if (!entry) return [];
  const drained = entry.events.splice(0);
  if (call.method === "stop") {
    entry.stop();
    this.watches.delete(id);
  }
  return drained;
};

export default {
  fetch(request, env) {
    const name = new URL(request.url).pathname.slice(1);
    return env.STORE.get(env.STORE.idFromName(name)).fetch(request);
  },
};
`;

let worker: Miniflare | undefined;

runProviderConformance(
  {
    name: "AgentSessionProvider inside workerd (Durable Object SQLite over RPC)",
    beforeAll() {
      worker = new Miniflare({
        modules: [
          { type: "ESModule", path: "/worker/index.js", contents: WORKER },
          ...[...transpileGraph(ENTRY)].map(([path, contents]) => ({
            type: "ESModule" as const,
            path: `/worker/${path}`,
            contents,
          })),
        ],
        modulesRoot: "/worker",
        compatibilityDate: "2025-01-01",
        durableObjects: { STORE: { className: "Store", useSQLite: true } },
      });
      return worker.ready;
    },
    afterAll: () => worker?.dispose(),
    create() {
      const store = new RemoteStore(crypto.randomUUID());
      return {
        session: (sessionId) => new RemoteSessionProvider(store, sessionId),
      };
    },
  },
  { describe, it, expect, beforeAll, afterAll },
);

// --- Internal helpers ---

interface Call {
  sessionId: string;
  target: "session" | "context" | "blocks" | "watch";
  key?: string;
  method: string;
  args: unknown[];
}

interface Reply {
  ok: boolean;
  value?: unknown;
  error?: {
    message: string;
    name?: string;
    code?: string;
    typeError: boolean;
    marked: boolean;
  };
}

/** One Durable Object: the store every provider of one `create()` addresses (its identity). */
class RemoteStore {
  /** Calls wait for watch starts issued before them, as they would in one process. */
  starting: Promise<unknown> = Promise.resolve();

  constructor(readonly name: string) {}

  async call<T>(call: Call): Promise<T> {
    if (!worker)
      throw new Error("[workerd conformance] Miniflare is not started");
    if (call.target !== "watch") await this.starting;
    const undefinedAt = call.args.flatMap((value, index) =>
      value === undefined ? [index] : [],
    );
    const response = await worker.dispatchFetch(`http://store/${this.name}`, {
      method: "POST",
      body: JSON.stringify({ ...call, undefinedAt }),
    });
    const reply = (await response.json()) as Reply;
    if (reply.ok) return reply.value as T;
    throw reviveError(reply.error!);
  }
}

/** `SessionProvider` over RPC to `AgentSessionProvider` in the Durable Object; every method is async. */
class RemoteSessionProvider implements SessionProvider {
  /** The Durable Object's store honours `importRecords`' `reattach`, as the sql backend does. */
  readonly importReattaches = true;

  constructor(
    readonly storeIdentity: RemoteStore,
    readonly sessionId: string,
  ) {}

  forSession(sessionId: string): RemoteSessionProvider {
    return new RemoteSessionProvider(this.storeIdentity, sessionId);
  }

  createContextProvider(key: string): RemoteContextProvider {
    return new RemoteContextProvider(this.storeIdentity, this.sessionId, key);
  }

  createBlockHistory(): RemoteBlockHistory {
    return new RemoteBlockHistory(this.storeIdentity, this.sessionId);
  }

  async getMessage(id: string): Promise<SessionMessage | null> {
    const message = await this.#call<SessionMessage | null>("getMessage", id);
    return message && reviveCreatedAt(message);
  }

  async getHistory(leafId?: string | null): Promise<SessionMessage[]> {
    return (await this.#call<SessionMessage[]>("getHistory", leafId)).map(
      reviveCreatedAt,
    );
  }

  async getLatestLeaf(): Promise<SessionMessage | null> {
    const message = await this.#call<SessionMessage | null>("getLatestLeaf");
    return message && reviveCreatedAt(message);
  }

  getLatestLeafId(): Promise<string | null> {
    return this.#call("getLatestLeafId");
  }

  async getBranches(messageId: string): Promise<SessionMessage[]> {
    return (await this.#call<SessionMessage[]>("getBranches", messageId)).map(
      reviveCreatedAt,
    );
  }

  getPathLength(leafId?: string | null): Promise<number> {
    return this.#call("getPathLength", leafId);
  }

  getPathIds(leafId?: string | null): Promise<PathEntry[]> {
    return this.#call("getPathIds", leafId);
  }

  async getMessagesByIds(
    ids: readonly string[],
  ): Promise<Array<SessionMessage | null>> {
    return (
      await this.#call<Array<SessionMessage | null>>("getMessagesByIds", ids)
    ).map((message) => message && reviveCreatedAt(message));
  }

  writeMessages(
    messages: readonly MessageWrite[],
    options?: WriteMessagesOptions,
  ): Promise<WriteMessagesResult> {
    return this.#call("writeMessages", messages, options);
  }

  updateMessage(message: SessionMessage): Promise<void> {
    return this.#call("updateMessage", message);
  }

  deleteMessages(ids: readonly string[]): Promise<void> {
    return this.#call("deleteMessages", ids);
  }

  clearMessages(): Promise<void> {
    return this.#call("clearMessages");
  }

  addCompaction(
    summary: string,
    fromMessageId: string,
    toMessageId: string,
    meta?: CompactionMeta,
  ): Promise<StoredCompaction> {
    return this.#call(
      "addCompaction",
      summary,
      fromMessageId,
      toMessageId,
      meta,
    );
  }

  getCompactions(): Promise<StoredCompaction[]> {
    return this.#call("getCompactions");
  }

  deleteCompaction(id: string): Promise<boolean> {
    return this.#call("deleteCompaction", id);
  }

  searchMessages(
    query: string,
    limit?: number,
    options?: TextSearchOptions,
  ): Promise<SearchResult[]> {
    return options === undefined
      ? this.#call("searchMessages", query, limit)
      : this.#call("searchMessages", query, limit, options);
  }

  async getRecentHistory(
    leafId: string | null | undefined,
    maxContentBytes: number,
    minRecentMessages?: number,
  ): Promise<RecentHistoryResult> {
    const result = await this.#call<RecentHistoryResult>(
      "getRecentHistory",
      leafId,
      maxContentBytes,
      minRecentMessages,
    );
    return { ...result, messages: result.messages.map(reviveCreatedAt) };
  }

  getHistoryRowStats(leafId?: string | null): Promise<HistoryRowStat[]> {
    return this.#call("getHistoryRowStats", leafId);
  }

  async exportMessages(): Promise<StoredMessageRecord[]> {
    const records = await this.#call<StoredMessageRecord[]>("exportMessages");
    return records.map((record) => ({
      ...record,
      message: reviveCreatedAt(record.message),
    }));
  }

  importRecords(records: ImportRecords): Promise<void> {
    return this.#call("importRecords", records);
  }

  getConfig(key: string): Promise<string | null> {
    return this.#call("getConfig", key);
  }

  setConfig(key: string, value: string | null): Promise<void> {
    return this.#call("setConfig", key, value);
  }

  /** Subscribes inside the Durable Object and drains its buffered events every 20 ms. */
  watchChanges(
    listener: ChangeListener,
    options: WatchChangesOptions = {},
  ): Unsubscribe {
    // Checked here, as the provider inside the isolate would, so a bad position throws at once.
    if (options.after !== undefined) parseSeqPosition(options.after);
    const id = crypto.randomUUID();
    const store = this.storeIdentity;
    const watch = (method: string) =>
      store.call<ChangeEvent[]>({
        sessionId: this.sessionId,
        target: "watch",
        method,
        args: [id, options],
      });
    const started = watch("start");
    store.starting = Promise.all([store.starting, started]);
    let draining = Promise.resolve();
    // The stop below reaches the object after any drain in flight, which may carry a write made
    // after `stop()` returned: the contract delivers nothing then, so neither does this.
    let stopped = false;
    const deliver = async (method: string) => {
      for (const event of await watch(method)) {
        if (stopped) return;
        try {
          await listener(event);
        } catch (error) {
          console.warn("[workerd conformance] listener threw:", error);
        }
      }
    };
    const timer = setInterval(() => {
      // A drain racing the end of the run (Miniflare disposed) is not an error of the case.
      draining = draining.then(() => deliver("drain")).catch(() => undefined);
    }, 20);
    return () => {
      stopped = true;
      clearInterval(timer);
      void draining.then(() => watch("stop")).catch(() => undefined);
    };
  }

  #call<T>(method: string, ...args: unknown[]): Promise<T> {
    return this.storeIdentity.call({
      sessionId: this.sessionId,
      target: "session",
      method,
      args,
    });
  }
}

/** `AgentContextProvider` (a `cf_agents_context_blocks` row) over RPC. */
class RemoteContextProvider implements WritableContextProvider {
  constructor(
    private readonly store: RemoteStore,
    private readonly sessionId: string,
    private key: string | undefined,
  ) {}

  init(label: string): void {
    this.key ??= label;
  }

  get(): Promise<string | null> {
    return this.#call("get");
  }

  set(content: string): Promise<void> {
    return this.#call("set", content);
  }

  #call<T>(method: string, ...args: unknown[]): Promise<T> {
    return this.store.call({
      sessionId: this.sessionId,
      target: "context",
      key: this.key,
      method,
      args,
    });
  }
}

/** `AgentBlockHistory` (`arbor_block_history`) over RPC. */
class RemoteBlockHistory implements BlockHistoryStore {
  constructor(
    private readonly store: RemoteStore,
    private readonly sessionId: string,
  ) {}

  record(
    label: string,
    entry: Omit<BlockVersion, "version" | "at"> & { at?: string },
  ): Promise<BlockVersion> {
    return this.#call("record", label, entry);
  }

  list(label: string): Promise<BlockVersion[]> {
    return this.#call("list", label);
  }

  clear(): Promise<void> {
    return this.#call("clear");
  }

  #call<T>(method: string, ...args: unknown[]): Promise<T> {
    return this.store.call({
      sessionId: this.sessionId,
      target: "blocks",
      method,
      args,
    });
  }
}

/** The provider decodes stored messages with `createdAt` revived to a Date; JSON made it a string again. */
function reviveCreatedAt(message: SessionMessage): SessionMessage {
  const createdAt = message.createdAt as unknown;
  if (typeof createdAt === "string") {
    const date = new Date(createdAt);
    if (!Number.isNaN(date.getTime())) message.createdAt = date;
  }
  return message;
}

/** The thrown error rebuilt with the same class, message, code and Arbor marker. */
function reviveError(error: NonNullable<Reply["error"]>): Error {
  const code = error.code as ArborErrorCode;
  const revived = error.marked
    ? error.typeError
      ? new ArborTypeError(code, error.message)
      : new ArborError(code, error.message)
    : error.typeError
      ? new TypeError(error.message)
      : new Error(error.message);
  if (error.name) revived.name = error.name;
  if (!error.marked && error.code !== undefined)
    Object.assign(revived, { code });
  return revived;
}
