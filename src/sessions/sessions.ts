import {
  ArborTypeError,
  type Session as ArborSession,
} from "../session/index.js";
import { sessionSeam } from "../session/facade/session.js";
import { SessionsFeed } from "./change-feed.js";
import { SessionHandle } from "./session-handle.js";
import { sessionOpener } from "./store.js";
import type {
  SessionChangeListener,
  SessionsOptions,
  SessionsStore,
} from "./types.js";

/**
 * The sessions of one store, as handles by id, with one change feed over all of them
 * (docs/sessions-032.md). Every call is a small adapter over an Arbor `Session`, so it runs on
 * every backend: SQLite (`openSqlite()`), Durable Objects (`this`), PostgreSQL and memory.
 * Nothing is read or written until the first call on a handle; the schema is set up then.
 *
 * @example
 * ```ts
 * import { Sessions } from "arbor-memory/sessions";
 * import { openSqlite } from "arbor-memory/sqlite";
 *
 * const sessions = new Sessions(openSqlite(":memory:"));
 * const session = sessions.session();
 * const { inserted } = await session.appendMessage({ id: "u1", role: "user", parts: [{ type: "text", text: "Hi" }] });
 * for await (const message of session.history()) console.log(message.id);
 * ```
 */
export class Sessions {
  readonly #open: (sessionId: string) => ArborSession;
  readonly #handles = new Map<
    string,
    { handle: SessionHandle; session: ArborSession }
  >();
  readonly #reserved: ReadonlySet<string>;
  readonly #feed: SessionsFeed;

  /**
   * @param store - A `Backend` (`postgresBackend(client)`, `sqliteBackend(file)`), a `sql` store (a
   *   Durable Object's `this`, `openSqlite()`) or a `SessionProvider`. Anything else, a PostgreSQL
   *   client itself included, throws `INVALID_TARGET`.
   * @param options - `reservedMetadataKeys`: metadata keys stripped from `source: "client"` writes.
   */
  constructor(store: SessionsStore, options: SessionsOptions = {}) {
    this.#open = sessionOpener(store);
    this.#reserved = new Set(checkReserved(options?.reservedMetadataKeys));
    this.#feed = new SessionsFeed(
      (sessionId) => this.#entry(sessionId).session,
      (listener) => sessionSeam(this.#entry("").session).watchStore(listener),
    );
  }

  /** The handle of one session; `""` (the default) is the primary one. Cached per id. */
  session(sessionId = ""): SessionHandle {
    return this.#entry(sessionId).handle;
  }

  /**
   * Calls `listener` after every write to any session of the store, in order, with the stored
   * message for appends, updates and imports. Returns the function that stops it.
   */
  subscribe(listener: SessionChangeListener): () => void {
    if (typeof listener !== "function") {
      throw new ArborTypeError(
        "INVALID_ARGUMENT",
        "[arbor] [sessions] subscribe() needs a listener function",
      );
    }
    return this.#feed.subscribe(listener);
  }

  // --- Internal helpers ---

  #entry(sessionId: string): { handle: SessionHandle; session: ArborSession } {
    let entry = this.#handles.get(sessionId);
    if (!entry) {
      const session = this.#open(sessionId);
      const handle = new SessionHandle(sessionId, {
        session,
        feed: this.#feed,
        reserved: this.#reserved,
      });
      entry = { handle, session };
      this.#handles.set(sessionId, entry);
    }
    return entry;
  }
}

function checkReserved(keys: unknown): readonly string[] {
  if (keys === undefined) return [];
  if (
    !Array.isArray(keys) ||
    !keys.every((key): key is string => typeof key === "string")
  ) {
    throw new ArborTypeError(
      "INVALID_ARGUMENT",
      "[arbor] [sessions] `reservedMetadataKeys` must be an array of strings",
    );
  }
  return keys;
}
