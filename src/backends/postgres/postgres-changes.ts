import type {
  ChangeFeedSource,
  ChangeListener,
  ChangeWatchScope,
  Unsubscribe,
} from "../../session/contracts/changes.js";
import { ChangeFeed, type HeldWatch } from "../../session/state/change-feed.js";
import type { PostgresClient } from "./postgres-client.js";
import { StoreSlot, storeRuntime } from "../../session/state/store-runtime.js";
import type { ChangeReader } from "./postgres-change-reader.js";
import {
  followCatchUp,
  parsePostgresPosition,
  type PostgresPosition,
} from "./postgres-change-position.js";

/**
 * Resolves once the watchers of this client have read their starting point, so a write this
 * process issues after `watch()` returned is always delivered. Immediate without watchers.
 */
export function changeWatchersReady(client: object): Promise<void> | undefined {
  return storeRuntime(client).find(CHANGE_HUB)?.starting;
}

/** Watches one session or every session (`scope.sessionId`) of the database behind `client`. */
export function watchPostgresChanges(
  client: PostgresClient,
  scope: ChangeWatchScope,
  listener: ChangeListener,
): Unsubscribe {
  const position =
    scope.after === undefined
      ? undefined
      : parsePostgresPosition(scope.after, scope.sessionId !== null);
  const hub = storeRuntime(client).own(CHANGE_HUB, () => new ChangeHub(client));
  return hub.add(listener, scope.sessionId, position, scope);
}

/** The database's change feed, as its `Backend` declares it. */
export function postgresChangeFeed(client: PostgresClient): ChangeFeedSource {
  return {
    watch: (listener, scope) => watchPostgresChanges(client, scope, listener),
  };
}

// --- Internal helpers ---

/** The database's one change reader in this process, shared by its backend and every provider. */
const CHANGE_HUB = new StoreSlot<ChangeHub>("postgres change hub");

/** How long a resumed watch waits before it reads what it missed again, after a failed read. */
const CATCH_UP_RETRY_MS = 100;
const CATCH_UP_RETRY_MAX_MS = 5_000;

/**
 * The watchers of one client: their listeners (`ChangeFeed`) and one reader of the change log
 * (`ChangeReader`, loaded on first use), started with the first listener and stopped
 * with the last. A resumed watcher is held until the reader has read what it missed; a failed
 * catch-up is retried, never skipped.
 */
class ChangeHub {
  readonly #feed = new ChangeFeed<bigint>();
  #reader: ChangeReader | undefined;
  #started = false;
  starting: Promise<void> | undefined;

  constructor(readonly client: PostgresClient) {}

  add(
    listener: ChangeListener,
    sessionId: string | null,
    position: PostgresPosition | undefined,
    scope: ChangeWatchScope,
  ): Unsubscribe {
    if (this.#feed.size === 0) {
      this.#started = false;
      this.starting = this.#start().finally(() => (this.#started = true));
    }
    const onIdle = () => this.#reader?.stop();
    if (!position) {
      const stop = this.#feed.add(listener, sessionId, onIdle);
      if (scope.onStart) this.#reportStart(scope.onStart);
      return stop;
    }
    scope.onStart?.(String(scope.after));
    const watch = this.#feed.addHeld(listener, sessionId, onIdle);
    let stopped = false;
    void this.#catchUp(watch, sessionId, position, () => stopped);
    return () => {
      stopped = true;
      watch.stop();
    };
  }

  /**
   * A new live watcher gets every row its reader's current snapshot has not seen (a read in
   * flight publishes to it too), so that snapshot is where it starts; while the reader is still
   * starting, the snapshot it starts with.
   */
  #reportStart(onStart: (position: string) => void): void {
    const now = this.#started ? this.#reader?.position : null;
    if (now) {
      onStart(now);
      return;
    }
    void this.starting?.then(() => {
      const position = this.#reader?.position;
      if (position) onStart(position);
    });
  }

  async #catchUp(
    watch: HeldWatch<bigint>,
    sessionId: string | null,
    position: PostgresPosition,
    stopped: () => boolean,
  ): Promise<void> {
    let delay = CATCH_UP_RETRY_MS;
    let warned = false;
    while (!stopped()) {
      try {
        await this.starting;
        if (!this.#reader) throw new Error("the change feed did not start");
        const { events, snapshot } = await this.#reader.catchUp(
          sessionId,
          position,
        );
        if (stopped()) return;
        watch.resume(events, (event, xid) =>
          followCatchUp(snapshot, event, xid),
        );
        return;
      } catch (error) {
        if (!warned) {
          warned = true;
          console.warn(
            "[arbor] [postgres] A resumed watch could not read what it missed; retrying:",
            error instanceof Error ? error.message : error,
          );
        }
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, delay);
          (timer as { unref?: () => void }).unref?.();
        });
        delay = Math.min(delay * 2, CATCH_UP_RETRY_MAX_MS);
      }
    }
  }

  async #start(): Promise<void> {
    try {
      if (!this.#reader) {
        // Loaded with the first watch: an app that only writes does not load the reader.
        const [{ ChangeReader }, { postgresExecutor }] = await Promise.all([
          import("./postgres-change-reader.js"),
          import("./postgres-executor.js"),
        ]);
        this.#reader ??= new ChangeReader(
          postgresExecutor(this.client),
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
