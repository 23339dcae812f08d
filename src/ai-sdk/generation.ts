import type { UIMessage, UIMessageChunk } from "ai";
import { settleInterruptedMessage } from "../agent/settle-message.js";
import type {
  BackendStreams,
  Session,
  SessionMessage,
} from "../session/index.js";
import { messageOf } from "../session/facade/status.js";
import type { AiSdk } from "./_ai.js";
import type { LocalStream, StreamHub } from "./stream-hub.js";
import type { ChatStreamResult, ChatUIMessageChunk } from "./types.js";

/** One answer being generated, as the handler set it up. */
export interface Generation {
  ai: AiSdk;
  session: Session;
  sessionId: string;
  hub: StreamHub;
  local: LocalStream;
  streams: BackendStreams | undefined;
  result: ChatStreamResult;
  /** The branch sent to the model, as UI messages (ends with `continued` for a continuation). */
  uiMessages: SessionMessage[];
  /** The id a new answer gets. */
  assistantId: string;
  /** Where a new answer goes. */
  answerParentId: string | undefined;
  /** The stored answer a continuation extends. */
  continued: SessionMessage | undefined;
  /** How often the store is asked whether a stop came from another process. */
  stopPollMs: number;
}

/** Chunk types that end a UI message stream for `useChat`. */
const TERMINAL = new Set(["finish", "abort"]);

/**
 * Runs one answer to its end, whoever is reading: every chunk goes to this process's readers and
 * to the store, so a client that disconnects or reloads can read it again (a disconnect never
 * stops it; only the stop route does). When the stream ends the answer is stored: under its user
 * message, or in place for a continuation. A stopped or failed answer keeps what was said,
 * settled (no tool call left without a result) and marked `partial` in its metadata.
 */
export async function runGeneration(generation: Generation): Promise<void> {
  const { ai, session, sessionId, hub, local, streams, continued } = generation;
  const signal = local.controller.signal;
  const store = storeWriter(streams, sessionId, local);
  const stopWatch = watchForStop(
    streams,
    sessionId,
    local,
    generation.stopPollMs,
  );
  const createdAt = new Date().toISOString();
  let failure: string | undefined;
  let ended = false;
  let latest: SessionMessage | undefined;
  try {
    // eslint-disable-next-line no-restricted-syntax -- ChatStreamResult accepts any streamText() result whatever its tool types, so its options parameter is `never`
    const toUIMessageStream = generation.result.toUIMessageStream.bind(
      generation.result,
    ) as unknown as (
      options: Record<string, unknown>,
    ) => ReadableStream<unknown>;
    const ui = toUIMessageStream({
      originalMessages: generation.uiMessages,
      generateMessageId: () => generation.assistantId,
      ...(continued
        ? {}
        : {
            messageMetadata: ({ part }: { part: { type: string } }) =>
              part.type === "start" ? { createdAt } : undefined,
          }),
      onError: (error: unknown) => {
        failure ??= messageOf(error);
        return messageOf(error);
      },
    }) as ReadableStream<ChatUIMessageChunk>;
    const tap = new TransformStream<ChatUIMessageChunk, ChatUIMessageChunk>({
      transform(chunk, controller) {
        if (TERMINAL.has(chunk.type)) ended = true;
        const encoded = JSON.stringify(chunk);
        local.push(encoded);
        store.push(encoded);
        controller.enqueue(chunk);
      },
    });
    // The signal also ends the pipe, so a provider that ignores it cannot hold the answer open.
    const piped = ui.pipeThrough(tap, { signal });
    for await (const snapshot of ai.readUIMessageStream({
      ...(continued ? { message: continued as UIMessage } : {}),
      stream: piped as ReadableStream<UIMessageChunk>,
      onError: (error: unknown) => {
        if (!signal.aborted) failure ??= messageOf(error);
      },
    })) {
      latest = snapshot as SessionMessage;
    }
  } catch (error) {
    if (!signal.aborted) failure ??= messageOf(error);
  } finally {
    stopWatch.stop();
  }
  const stopped = signal.aborted;
  if (!ended) {
    const last = stopped ? { type: "abort" } : { type: "finish" };
    const encoded = JSON.stringify(last);
    local.push(encoded);
    store.push(encoded);
  }
  try {
    await persistAnswer(generation, latest, { stopped, failure, createdAt });
    await session.refreshSystemPrompt().catch((error: unknown) => {
      console.warn(
        `[arbor] [ai-sdk] Refreshing the system prompt failed: ${messageOf(error)}`,
      );
    });
  } finally {
    await store.flush();
    await streams
      ?.finish(sessionId, local.streamId)
      .catch((error: unknown) => warnStore(error));
    hub.close(sessionId, local);
  }
}

// --- Internal helpers ---

async function persistAnswer(
  generation: Generation,
  latest: SessionMessage | undefined,
  end: { stopped: boolean; failure: string | undefined; createdAt: string },
): Promise<void> {
  const { session, continued } = generation;
  if (!latest) return;
  const interrupted = end.stopped || end.failure !== undefined;
  const settled = interrupted ? settleInterruptedMessage(latest) : latest;
  if (!settled) return;
  const metadata = {
    ...(typeof settled.metadata === "object" && settled.metadata !== null
      ? (settled.metadata as Record<string, unknown>)
      : {}),
    ...(continued ? {} : { createdAt: end.createdAt }),
    ...(interrupted ? { partial: true } : {}),
    ...(end.stopped ? { stopped: true } : {}),
    ...(end.failure !== undefined ? { error: end.failure } : {}),
  };
  if (continued) {
    await session.updateMessage({ ...settled, id: continued.id, metadata });
    return;
  }
  await session.appendMessage(
    { ...settled, id: generation.assistantId, role: "assistant", metadata },
    generation.answerParentId,
  );
}

/**
 * Writes chunks to the store in order, one batch per round trip: while a write is out, new chunks
 * gather and go in the next. A stop found on a write aborts the answer. A failing store is logged
 * once; this process's readers still get every chunk.
 */
function storeWriter(
  streams: BackendStreams | undefined,
  sessionId: string,
  local: LocalStream,
) {
  let pending: string[] = [];
  let running: Promise<void> | null = null;
  let failed = false;
  const drain = async () => {
    while (pending.length > 0 && streams && !failed) {
      const batch = pending;
      pending = [];
      try {
        const { stopRequested } = await streams.append(
          sessionId,
          local.streamId,
          batch,
        );
        if (stopRequested) local.controller.abort();
      } catch (error) {
        failed = true;
        warnStore(error);
      }
    }
    running = null;
  };
  return {
    push(chunk: string) {
      if (!streams) return;
      pending.push(chunk);
      running ??= drain();
    },
    async flush() {
      while (running) await running;
    },
  };
}

/** Asks the store now and then whether another process stopped the answer. */
function watchForStop(
  streams: BackendStreams | undefined,
  sessionId: string,
  local: LocalStream,
  pollMs: number,
) {
  if (!streams) return { stop() {} };
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    streams
      .read(sessionId, Number.MAX_SAFE_INTEGER)
      .then((read) => {
        if (!read || read.streamId !== local.streamId || read.stopRequested)
          local.controller.abort();
      })
      .catch(() => undefined)
      .finally(() => (busy = false));
  }, pollMs);
  return { stop: () => clearInterval(timer) };
}

let warned = false;
function warnStore(error: unknown): void {
  if (warned) return;
  warned = true;
  console.warn(
    `[arbor] [ai-sdk] Storing the stream failed; a resume from another process may miss chunks: ${messageOf(error)}`,
  );
}
