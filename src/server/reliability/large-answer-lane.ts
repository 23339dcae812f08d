/**
 * The histories known to answer large (streamed window by window), so that a request for one
 * takes its turn in a lane of its own (`app.ts`), not among the turns every other request
 * shares.
 *
 * A request for a large history holds a turn only while it checks that its answer is large and
 * finds its leaf (then it gives the turn back and waits for its windows' turns,
 * docs/server.md#large-answers). That is the cost of any small read, but hundreds of them in a
 * burst (readers of one large history, say) took every turn and filled the queue, and a small
 * request that came meanwhile waited behind the whole burst. In a lane of a few turns of their
 * own they wait behind one another, and a small request finds the shared turns free.
 *
 * A history is known large once a request found its path longer than one window (before that
 * request reads its first window: readers that arrive together are told apart the sooner) and
 * small again once one answered it whole or its first window was not full; the first request
 * for a history is not known and takes a shared turn. The ids kept are
 * bounded (the least recently streamed are forgotten first); an id says nothing to a client,
 * which only ever sees when its answer starts.
 */
export class LargeAnswers {
  /** Insertion order: the least recently streamed first. */
  readonly #large = new Set<string>();

  constructor(private readonly capacity = DEFAULT_CAPACITY) {}

  /** Notes how the history of `sessionId` was just answered: streamed (large) or whole. */
  note(sessionId: string, large: boolean): void {
    this.#large.delete(sessionId);
    if (!large) return;
    this.#large.add(sessionId);
    if (this.#large.size > this.capacity)
      this.#large.delete(this.#large.values().next().value!);
  }

  /** Whether the history of `sessionId` is known to be large. */
  has(sessionId: string): boolean {
    return this.#large.has(sessionId);
  }

  /** Whether `method path` asks for a history known to be large. */
  asks(method: string, path: string): boolean {
    if (method !== "GET" || this.#large.size === 0) return false;
    const match = HISTORY_PATH.exec(path);
    if (!match) return false;
    try {
      return this.#large.has(decodeURIComponent(match[1]!));
    } catch {
      return false;
    }
  }
}

/** Turns of the large-answer lane: as many as the windows read at once (routes/history.ts). */
export const LARGE_ANSWER_TURNS = 2;

const DEFAULT_CAPACITY = 1024;
const HISTORY_PATH = /^\/v1\/sessions\/([^/]+)\/history$/;
