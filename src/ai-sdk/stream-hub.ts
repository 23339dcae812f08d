/**
 * The answers this process is generating, one per chat session: their chunks so far, the readers
 * waiting for more, and the controller a stop aborts. Readers in this process read here, without
 * polling the store; readers in other processes read the store (`stream-reader.ts`).
 */
export class LocalStream {
  readonly chunks: string[] = [];
  readonly controller = new AbortController();
  done = false;
  /** Resolves when the stream is closed: its answer is stored by then. */
  readonly finished: Promise<void>;
  private waiters: Array<() => void> = [];
  private markFinished!: () => void;

  constructor(readonly streamId: string) {
    this.finished = new Promise((resolve) => (this.markFinished = resolve));
  }

  push(chunk: string): void {
    this.chunks.push(chunk);
    this.wake();
  }

  close(): void {
    this.done = true;
    this.wake();
    this.markFinished();
  }

  /** Resolves when a chunk arrives or the stream closes. */
  changed(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}

/** The streams of one handler, keyed by session id. */
export class StreamHub {
  private readonly active = new Map<string, LocalStream>();

  get(sessionId: string): LocalStream | undefined {
    return this.active.get(sessionId);
  }

  open(sessionId: string, streamId: string): LocalStream {
    const stream = new LocalStream(streamId);
    this.active.set(sessionId, stream);
    return stream;
  }

  close(sessionId: string, stream: LocalStream): void {
    stream.close();
    if (this.active.get(sessionId) === stream) this.active.delete(sessionId);
  }
}
