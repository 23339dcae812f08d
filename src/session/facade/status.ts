import type { EmbeddingStatusEvent } from "../embeddings/types.js";

/** Session status events (docs/behavior/events-and-audit.md). */
export interface SessionStatusEvent {
  type: "cf_agent_session";
  phase: "idle" | "compacting";
  tokenEstimate: number;
  tokenThreshold: number | null;
  compacted?: { tokensBefore: number };
}

export interface SessionErrorEvent {
  type: "cf_agent_session_error";
  error: string;
}

export type SessionEvent =
  SessionStatusEvent | SessionErrorEvent | EmbeddingStatusEvent;
export type SessionEventListener = (event: SessionEvent) => void;

/**
 * Sends events to `onStatus` listeners (any backend) and, for sessions over a `sql` store with a
 * `broadcast` method, to the broadcaster as JSON strings. A failing listener never fails the
 * operation that emitted the event.
 */
export class StatusEmitter {
  private readonly listeners = new Set<SessionEventListener>();

  private broadcaster: ((message: string) => void) | null = null;

  /** Sends every event from now on to `broadcaster` too, as a JSON string. */
  broadcastTo(broadcaster: (message: string) => void): void {
    this.broadcaster = broadcaster;
  }

  /** Whether anyone hears events: estimates are computed only then (or for auto-compaction). */
  get hasBroadcaster(): boolean {
    return this.broadcaster !== null;
  }

  get isObserved(): boolean {
    return this.broadcaster !== null || this.listeners.size > 0;
  }

  subscribe(listener: SessionEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: SessionEvent): void {
    if (this.broadcaster) {
      try {
        this.broadcaster(JSON.stringify(event));
      } catch (error) {
        console.warn(`[arbor] Status broadcast failed: ${messageOf(error)}`);
      }
    }
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        console.warn(`[arbor] A status listener threw: ${messageOf(error)}`);
      }
    }
  }
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
