import type { RunnableConfig } from "@langchain/core/runnables";
import type {
  ChannelVersions,
  Checkpoint,
  CheckpointListOptions,
  CheckpointMetadata,
  CheckpointPendingWrite,
  CheckpointTuple,
  PendingWrite,
  SerializerProtocol,
} from "@langchain/langgraph-checkpoint";
import {
  ArborTypeError,
  isArborError,
  SessionManager,
  type Backend,
} from "../session/index.js";
import { mirroredMessages } from "./message-mirror.js";
import {
  EMPTY_TYPE,
  loadValue,
  storeValue,
  type StoredValue,
} from "./stored-value.js";
import {
  ThreadRecords,
  type CheckpointRecord,
  type TaskWritesRecord,
  type WriteRecord,
} from "./thread-records.js";
import {
  BaseCheckpointSaver,
  TASKS,
  WRITES_IDX_MAP,
  compareWritesSortKeys,
  maxChannelVersion,
  writesSortKey,
} from "./_checkpoint.js";

/** Options of `new ArborCheckpointSaver()`. */
export interface ArborCheckpointSaverOptions {
  /** How checkpoints and writes are serialized; LangGraph's `JsonPlusSerializer` by default. */
  serde?: SerializerProtocol;
  /**
   * The channel whose messages are mirrored as the Arbor session's messages (default
   * `"messages"`), or `false` to mirror none. Only the root graph's channel is mirrored.
   */
  messagesChannel?: string | false;
}

/**
 * A LangGraph checkpointer over any Arbor backend (docs/langgraph.md): a thread is an Arbor
 * session, its checkpoints and pending writes are kept as the saver's serializer wrote them, in
 * the session's config entries, and its `messages` channel is mirrored as the session's messages,
 * a fork made by time travel as a branch of the Arbor tree.
 *
 * @example
 * ```ts
 * import { ArborCheckpointSaver } from "arbor-memory/langgraph";
 * import { sqliteBackend } from "arbor-memory/sqlite";
 *
 * const checkpointer = new ArborCheckpointSaver(sqliteBackend("agent.db"));
 * // graph.compile({ checkpointer }), then invoke with { configurable: { thread_id: "t1" } }
 * ```
 */
export class ArborCheckpointSaver extends BaseCheckpointSaver {
  /** The manager the threads are written through: list, search or erase them with it. */
  readonly manager: SessionManager;
  private readonly records: ThreadRecords;
  private readonly messagesChannel: string | false;
  /** Threads this saver has registered as Arbor sessions. */
  private readonly registered = new Map<string, Promise<void>>();
  /** Per thread, the mirrored message ids known to be stored (a read saved, not a truth). */
  private readonly mirrored = new Map<string, Set<string>>();
  /** Per task-writes entry, the read-modify-write in progress. */
  private readonly writing = new Map<string, Promise<void>>();

  constructor(backend: Backend, options: ArborCheckpointSaverOptions = {}) {
    super(options.serde);
    this.manager = SessionManager.create(backend);
    this.records = new ThreadRecords(backend.registry);
    this.messagesChannel = options.messagesChannel ?? "messages";
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const threadId = threadIdOf(config);
    if (threadId === undefined) return undefined;
    const namespace = namespaceOf(config);
    const checkpointId =
      idOf(config.configurable?.checkpoint_id) ??
      (await this.records.head(threadId, namespace));
    if (checkpointId === null) return undefined;
    const record = await this.records.checkpoint(
      threadId,
      namespace,
      checkpointId,
    );
    if (record === null) return undefined;
    return this.tupleOf(threadId, namespace, checkpointId, record);
  }

  async *list(
    config: RunnableConfig,
    options: CheckpointListOptions = {},
  ): AsyncGenerator<CheckpointTuple> {
    const { before, filter } = options;
    let remaining = options.limit;
    const beforeId = idOf(before?.configurable?.checkpoint_id);
    const wantedId = idOf(config.configurable?.checkpoint_id);
    const namespace =
      config.configurable?.checkpoint_ns === undefined
        ? undefined
        : namespaceOf(config);
    const threadId = threadIdOf(config);
    const threads =
      threadId === undefined ? this.allThreads() : single(threadId);
    for await (const thread of threads) {
      const listed = await this.records.checkpoints(thread, namespace);
      listed.sort((a, b) =>
        a.checkpointId < b.checkpointId
          ? 1
          : a.checkpointId > b.checkpointId
            ? -1
            : 0,
      );
      for (const { namespace: ns, checkpointId, record } of listed) {
        if (wantedId !== null && checkpointId !== wantedId) continue;
        if (beforeId !== null && checkpointId >= beforeId) continue;
        if (remaining !== undefined && remaining <= 0) return;
        const tuple = await this.tupleOf(thread, ns, checkpointId, record);
        if (filter && !matches(tuple.metadata, filter)) continue;
        if (remaining !== undefined) remaining -= 1;
        yield tuple;
      }
    }
  }

  async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    const threadId = threadIdOf(config);
    if (threadId === undefined) throw missingThreadId("put");
    const namespace = namespaceOf(config);
    await this.register(threadId);
    // Only the channels this checkpoint changed are written: the others are already stored at
    // the version the checkpoint names (as LangGraph's PostgreSQL saver keeps them).
    await Promise.all(
      Object.entries(newVersions).map(async ([channel, version]) => {
        const value: StoredValue =
          channel in checkpoint.channel_values
            ? await storeValue(this.serde, checkpoint.channel_values[channel])
            : { type: EMPTY_TYPE };
        await this.records.putChannel(
          threadId,
          namespace,
          channel,
          version,
          value,
        );
      }),
    );
    // The checkpoint entry after its channels and the head after the checkpoint: a write cut
    // short leaves at most unreferenced channel entries, never a checkpoint missing a value.
    const record: CheckpointRecord = {
      checkpoint: await storeValue(this.serde, {
        ...checkpoint,
        channel_values: {},
      }),
      metadata: await storeValue(this.serde, metadata),
      parentId: idOf(config.configurable?.checkpoint_id),
    };
    await this.records.putCheckpoint(
      threadId,
      namespace,
      checkpoint.id,
      record,
    );
    await this.records.advanceHead(threadId, namespace, checkpoint.id);
    if (
      namespace === "" &&
      this.messagesChannel !== false &&
      this.messagesChannel in newVersions
    )
      await this.mirror(
        threadId,
        checkpoint.channel_values[this.messagesChannel],
        checkpoint.ts,
      );
    return {
      configurable: {
        thread_id: threadId,
        checkpoint_ns: namespace,
        checkpoint_id: checkpoint.id,
      },
    };
  }

  async putWrites(
    config: RunnableConfig,
    writes: PendingWrite[],
    taskId: string,
    taskPath?: string,
  ): Promise<void> {
    const threadId = threadIdOf(config);
    if (threadId === undefined) throw missingThreadId("putWrites");
    const checkpointId = idOf(config.configurable?.checkpoint_id);
    if (checkpointId === null)
      throw new ArborTypeError(
        "INVALID_ARGUMENT",
        "[arbor] [langgraph] putWrites() needs config.configurable.checkpoint_id: the checkpoint the writes belong to",
      );
    const namespace = namespaceOf(config);
    const stored: WriteRecord[] = await Promise.all(
      writes.map(async ([channel, value], index) => ({
        idx: WRITES_IDX_MAP[channel] ?? index,
        channel,
        value: await storeValue(this.serde, value),
      })),
    );
    await this.register(threadId);
    // One entry per task: concurrent tasks never write the same entry, and one task's writes of
    // one call land together. Calls for the same task are chained in this process.
    const key = JSON.stringify([threadId, namespace, checkpointId, taskId]);
    const previous = this.writing.get(key) ?? Promise.resolve();
    const next = previous.then(async () => {
      const existing = await this.records.taskWrites(
        threadId,
        namespace,
        checkpointId,
        taskId,
      );
      const merged = mergeWrites(existing?.writes ?? [], stored);
      await this.records.putTaskWrites(threadId, namespace, checkpointId, {
        taskId,
        taskPath: taskPath ?? existing?.taskPath ?? "",
        writes: merged,
      });
    });
    this.writing.set(key, next);
    try {
      await next;
    } finally {
      if (this.writing.get(key) === next) this.writing.delete(key);
    }
  }

  /** Deletes the thread: its Arbor session with every checkpoint, write and mirrored message. */
  async deleteThread(threadId: string): Promise<void> {
    this.registered.delete(threadId);
    this.mirrored.delete(threadId);
    await this.manager.delete(threadId);
  }

  // --- Internal helpers ---

  private async tupleOf(
    threadId: string,
    namespace: string,
    checkpointId: string,
    record: CheckpointRecord,
  ): Promise<CheckpointTuple> {
    const [stored, metadata, pendingWrites] = await Promise.all([
      loadValue(this.serde, record.checkpoint) as Promise<Checkpoint>,
      loadValue(this.serde, record.metadata) as Promise<CheckpointMetadata>,
      this.pendingWrites(threadId, namespace, checkpointId),
    ]);
    const checkpoint: Checkpoint = {
      ...stored,
      channel_values: await this.channelValues(
        threadId,
        namespace,
        stored.channel_versions,
      ),
    };
    if (checkpoint.v < 4 && record.parentId !== null)
      await this.migratePendingSends(
        checkpoint,
        threadId,
        namespace,
        record.parentId,
      );
    const tuple: CheckpointTuple = {
      config: {
        configurable: {
          thread_id: threadId,
          checkpoint_ns: namespace,
          checkpoint_id: checkpointId,
        },
      },
      checkpoint,
      metadata,
      pendingWrites,
    };
    if (record.parentId !== null)
      tuple.parentConfig = {
        configurable: {
          thread_id: threadId,
          checkpoint_ns: namespace,
          checkpoint_id: record.parentId,
        },
      };
    return tuple;
  }

  /** Each channel's value at the version the checkpoint names, wherever it was written. */
  private async channelValues(
    threadId: string,
    namespace: string,
    versions: ChannelVersions,
  ): Promise<Record<string, unknown>> {
    const entries = await Promise.all(
      Object.entries(versions).map(async ([channel, version]) => {
        const stored = await this.records.channel(
          threadId,
          namespace,
          channel,
          version,
        );
        if (stored === null || stored.type === EMPTY_TYPE) return [];
        return [[channel, await loadValue(this.serde, stored)] as const];
      }),
    );
    return Object.fromEntries(entries.flat());
  }

  /** The checkpoint's pending writes in `writesSortKey` order, as LangGraph replays them. */
  private async pendingWrites(
    threadId: string,
    namespace: string,
    checkpointId: string,
  ): Promise<CheckpointPendingWrite[]> {
    const ordered = sortedWrites(
      await this.records.writes(threadId, namespace, checkpointId),
    );
    return Promise.all(
      ordered.map(
        async ({ taskId, write }) =>
          [
            taskId,
            write.channel,
            await loadValue(this.serde, write.value),
          ] as CheckpointPendingWrite,
      ),
    );
  }

  /**
   * Checkpoints before format 4 kept pending sends as writes of the parent: they become the
   * `__pregel_tasks` channel, as every LangGraph saver reads them.
   */
  private async migratePendingSends(
    checkpoint: Checkpoint,
    threadId: string,
    namespace: string,
    parentId: string,
  ): Promise<void> {
    const sends = sortedWrites(
      await this.records.writes(threadId, namespace, parentId),
    ).filter(({ write }) => write.channel === TASKS);
    checkpoint.channel_values[TASKS] = await Promise.all(
      sends.map(({ write }) => loadValue(this.serde, write.value)),
    );
    const versions = Object.values(checkpoint.channel_versions);
    checkpoint.channel_versions[TASKS] =
      versions.length > 0
        ? maxChannelVersion(...versions)
        : this.getNextVersion(undefined);
  }

  /** Registers the thread as an Arbor session once per saver. */
  private register(threadId: string): Promise<void> {
    let registering = this.registered.get(threadId);
    if (registering === undefined) {
      registering = this.createSession(threadId);
      this.registered.set(threadId, registering);
      registering.catch(() => this.registered.delete(threadId));
    }
    return registering;
  }

  private async createSession(threadId: string): Promise<void> {
    if (await this.manager.get(threadId)) return;
    await this.manager
      .create(threadId, { id: threadId })
      .catch((error: unknown) => {
        // Another saver or process registered it first: the thread is there, as wanted.
        if (!isArborError(error) || error.code !== "SESSION_EXISTS")
          throw error;
      });
  }

  /** Stores the messages not yet mirrored, each under the one before it, and follows the branch. */
  private async mirror(
    threadId: string,
    value: unknown,
    ts: string,
  ): Promise<void> {
    // A DeltaChannel's snapshot or any other shape is not a list of messages: nothing to show.
    if (!Array.isArray(value)) return;
    const messages = mirroredMessages(value, new Date(ts));
    const last = messages.at(-1);
    if (last === undefined) return;
    const known = this.mirrored.get(threadId) ?? new Set<string>();
    this.mirrored.set(threadId, known);
    let start = 0;
    while (start < messages.length && known.has(messages[start]!.id)) start++;
    const session = this.manager.getSession(threadId);
    // A message id already in the session is skipped by appendAll (the next still goes under it),
    // so after a restart the whole lineage is written again at no harm.
    if (start < messages.length)
      await session.appendAll(
        messages.slice(start),
        start === 0 ? null : messages[start - 1]!.id,
      );
    for (const message of messages) known.add(message.id);
    await session.switchBranch(last.id);
  }

  /** Every registered session, page by page: threads are sessions. */
  private async *allThreads(): AsyncGenerator<string> {
    let cursor: string | undefined;
    do {
      const page = await this.manager.listPage({
        limit: 100,
        ...(cursor === undefined ? {} : { cursor }),
      });
      for (const info of page.sessions) yield info.id;
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
  }
}

// --- Internal helpers ---

function threadIdOf(config: RunnableConfig): string | undefined {
  const value: unknown = config.configurable?.thread_id;
  if (typeof value === "string" && value !== "") return value;
  if (typeof value === "number") return String(value);
  return undefined;
}

function namespaceOf(config: RunnableConfig): string {
  const value: unknown = config.configurable?.checkpoint_ns;
  return typeof value === "string" ? value : "";
}

function idOf(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}

async function* single(threadId: string): AsyncGenerator<string> {
  yield threadId;
}

function missingThreadId(method: string): ArborTypeError {
  return new ArborTypeError(
    "INVALID_ARGUMENT",
    `[arbor] [langgraph] ${method}() needs config.configurable.thread_id: the thread is the Arbor session the checkpoint belongs to`,
  );
}

function matches(
  metadata: CheckpointMetadata | undefined,
  filter: Record<string, unknown>,
): boolean {
  const record = (metadata ?? {}) as Record<string, unknown>;
  return Object.entries(filter).every(([key, value]) => record[key] === value);
}

/**
 * LangGraph's rule for a task's writes: a regular write (index ≥ 0) is kept from the first call
 * that made it; a special one (an error, an interrupt: negative index) is replaced.
 */
function mergeWrites(
  existing: readonly WriteRecord[],
  incoming: readonly WriteRecord[],
): WriteRecord[] {
  const byIndex = new Map(existing.map((write) => [write.idx, write]));
  for (const write of incoming)
    if (write.idx < 0 || !byIndex.has(write.idx)) byIndex.set(write.idx, write);
  return [...byIndex.values()];
}

function sortedWrites(
  tasks: readonly TaskWritesRecord[],
): { taskId: string; write: WriteRecord }[] {
  return tasks
    .flatMap((task) =>
      task.writes.map((write) => ({
        taskId: task.taskId,
        write,
        key: writesSortKey(task.taskPath, task.taskId, write.idx),
      })),
    )
    .sort((a, b) => compareWritesSortKeys(a.key, b.key))
    .map(({ taskId, write }) => ({ taskId, write }));
}
