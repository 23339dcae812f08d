import type {
  ChangeListener,
  Unsubscribe,
} from "../../session/contracts/changes.js";
import { ChangeFeed } from "../../session/core/change-feed.js";
import type { PostgresClient } from "./postgres-client.js";
import { postgresOps } from "./postgres-lazy.js";
import type { ChangeReader } from "./postgres-change-reader.js";

/**
 * Resolves once the watchers of this client have read their starting point, so a write this
 * process issues after `watch()` returned is always delivered. Immediate without watchers.
 */
export function changeWatchersReady(client: object): Promise<void> | undefined {
  return hubs.get(client)?.starting;
}

/** Watches one session (`sessionId`) or every session (`null`) of the database behind `client`. */
export function watchPostgresChanges(
  client: PostgresClient,
  sessionId: string | null,
  listener: ChangeListener,
): Unsubscribe {
  let hub = hubs.get(client);
  if (!hub) {
    hub = new ChangeHub(client);
    hubs.set(client, hub);
  }
  return hub.add(listener, sessionId);
}

// --- Internal helpers ---

const hubs = new WeakMap<object, ChangeHub>();

/**
 * The watchers of one client: their listeners (`ChangeFeed`) and one reader of the change log
 * (`ChangeReader`, loaded with the other queries), started with the first listener and stopped
 * with the last.
 */
class ChangeHub {
  readonly #feed = new ChangeFeed();
  #reader: ChangeReader | undefined;
  starting: Promise<void> | undefined;

  constructor(readonly client: PostgresClient) {}

  add(listener: ChangeListener, sessionId: string | null): Unsubscribe {
    if (this.#feed.size === 0) this.starting = this.#start();
    return this.#feed.add(listener, sessionId, () => this.#reader?.stop());
  }

  async #start(): Promise<void> {
    try {
      if (!this.#reader) {
        const ops = await postgresOps();
        this.#reader ??= new ops.ChangeReader(
          ops.postgresExecutor(this.client),
          this.#feed,
        );
      }
    } catch (error) {
      console.warn(
        "[arbor] [postgres] The change feed could not start:",
        error,
      );
      return;
    }
    await this.#reader.start();
  }
}
