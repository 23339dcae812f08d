import type { SessionRegistry } from "../session/index.js";
import type { StoredValue } from "./stored-value.js";

// Where a thread's checkpoints live: config entries of its Arbor session (the registry's
// per-session key-value rows, which every backend has and which go with the session when it is
// deleted or erased). Decision: docs/decisions/2026-12-07-langgraph-checkpoints-in-session-config.md.
//
//   langgraph:checkpoint:<ns>/<id>        one checkpoint without its channel values, its metadata
//                                         and its parent id
//   langgraph:channel:<ns>/<channel>/<v>  one channel's value at one version (written once)
//   langgraph:writes:<ns>/<id>/<task>     the pending writes of one task against one checkpoint
//   langgraph:head:<ns>                   the newest checkpoint id of a namespace
//
// Each part is percent-encoded, so `/` only ever separates parts and a prefix selects exactly one
// namespace, checkpoint or task.

const ROOT = "langgraph:";
const CHECKPOINT = `${ROOT}checkpoint:`;
const CHANNEL = `${ROOT}channel:`;
const WRITES = `${ROOT}writes:`;
const HEAD = `${ROOT}head:`;

/** A checkpoint as stored: the serializer's output for each part, and its parent. */
export interface CheckpointRecord {
  /** The checkpoint with `channel_values` left empty: the values are channel entries. */
  readonly checkpoint: StoredValue;
  readonly metadata: StoredValue;
  readonly parentId: string | null;
}

/** One pending write as stored. */
export interface WriteRecord {
  readonly idx: number;
  readonly channel: string;
  readonly value: StoredValue;
}

/** The pending writes of one task against one checkpoint. */
export interface TaskWritesRecord {
  readonly taskId: string;
  readonly taskPath: string;
  readonly writes: readonly WriteRecord[];
}

/** A stored checkpoint found by a listing. */
export interface ListedCheckpoint {
  readonly namespace: string;
  readonly checkpointId: string;
  readonly record: CheckpointRecord;
}

/** The LangGraph records of one store, by thread (an Arbor session id). */
export class ThreadRecords {
  constructor(private readonly registry: SessionRegistry) {}

  async checkpoint(
    threadId: string,
    namespace: string,
    checkpointId: string,
  ): Promise<CheckpointRecord | null> {
    const text = await this.registry.getConfig(
      threadId,
      checkpointKey(namespace, checkpointId),
    );
    return text === null ? null : (JSON.parse(text) as CheckpointRecord);
  }

  async putCheckpoint(
    threadId: string,
    namespace: string,
    checkpointId: string,
    record: CheckpointRecord,
  ): Promise<void> {
    await this.registry.setConfig(
      threadId,
      checkpointKey(namespace, checkpointId),
      JSON.stringify(record),
    );
  }

  /** Every checkpoint of the thread, of one namespace or (`undefined`) of all. */
  async checkpoints(
    threadId: string,
    namespace: string | undefined,
  ): Promise<ListedCheckpoint[]> {
    const prefix =
      namespace === undefined ? CHECKPOINT : `${CHECKPOINT}${part(namespace)}/`;
    const entries = await this.registry.listConfig(threadId, prefix);
    return Object.entries(entries).map(([key, text]) => {
      const [encodedNamespace = "", encodedId = ""] = key
        .slice(CHECKPOINT.length)
        .split("/");
      return {
        namespace: decodeURIComponent(encodedNamespace),
        checkpointId: decodeURIComponent(encodedId),
        record: JSON.parse(text) as CheckpointRecord,
      };
    });
  }

  /** The newest checkpoint id of a namespace, or `null` for none. */
  async head(threadId: string, namespace: string): Promise<string | null> {
    return this.registry.getConfig(threadId, headKey(namespace));
  }

  /** Moves the namespace's head to `checkpointId` when it is newer (ids are time-ordered). */
  async advanceHead(
    threadId: string,
    namespace: string,
    checkpointId: string,
  ): Promise<void> {
    const current = await this.head(threadId, namespace);
    if (current === null || current < checkpointId)
      await this.registry.setConfig(threadId, headKey(namespace), checkpointId);
  }

  async channel(
    threadId: string,
    namespace: string,
    channel: string,
    version: string | number,
  ): Promise<StoredValue | null> {
    const text = await this.registry.getConfig(
      threadId,
      channelKey(namespace, channel, version),
    );
    return text === null ? null : (JSON.parse(text) as StoredValue);
  }

  async putChannel(
    threadId: string,
    namespace: string,
    channel: string,
    version: string | number,
    value: StoredValue,
  ): Promise<void> {
    await this.registry.setConfig(
      threadId,
      channelKey(namespace, channel, version),
      JSON.stringify(value),
    );
  }

  /** The writes of every task against one checkpoint. */
  async writes(
    threadId: string,
    namespace: string,
    checkpointId: string,
  ): Promise<TaskWritesRecord[]> {
    const entries = await this.registry.listConfig(
      threadId,
      `${WRITES}${part(namespace)}/${part(checkpointId)}/`,
    );
    return Object.values(entries).map(
      (text) => JSON.parse(text) as TaskWritesRecord,
    );
  }

  async taskWrites(
    threadId: string,
    namespace: string,
    checkpointId: string,
    taskId: string,
  ): Promise<TaskWritesRecord | null> {
    const text = await this.registry.getConfig(
      threadId,
      writesKey(namespace, checkpointId, taskId),
    );
    return text === null ? null : (JSON.parse(text) as TaskWritesRecord);
  }

  async putTaskWrites(
    threadId: string,
    namespace: string,
    checkpointId: string,
    record: TaskWritesRecord,
  ): Promise<void> {
    await this.registry.setConfig(
      threadId,
      writesKey(namespace, checkpointId, record.taskId),
      JSON.stringify(record),
    );
  }
}

// --- Internal helpers ---

function part(value: string): string {
  return encodeURIComponent(value);
}

function checkpointKey(namespace: string, checkpointId: string): string {
  return `${CHECKPOINT}${part(namespace)}/${part(checkpointId)}`;
}

function channelKey(
  namespace: string,
  channel: string,
  version: string | number,
): string {
  return `${CHANNEL}${part(namespace)}/${part(channel)}/${part(String(version))}`;
}

function writesKey(
  namespace: string,
  checkpointId: string,
  taskId: string,
): string {
  return `${WRITES}${part(namespace)}/${part(checkpointId)}/${part(taskId)}`;
}

function headKey(namespace: string): string {
  return `${HEAD}${part(namespace)}`;
}
