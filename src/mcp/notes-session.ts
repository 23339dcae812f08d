import type {
  SessionManager,
  SessionMessage,
  SessionSnapshot,
} from "../session/index.js";

/** The id of the notes session when the connection has no owner (the CLI without `--owner`). */
export const NOTES_SESSION_ID = "arbor-notes";

/** The name the notes session is created with. */
export const NOTES_SESSION_NAME = "Notes";

/**
 * The one fixed notes session of an owner: `arbor-notes` without an owner, `arbor-notes-<owner>`
 * with one. `remember` (and the memory tools without a `sessionId`) write there.
 */
export function notesSessionId(ownerId: string | null): string {
  return ownerId === null ? NOTES_SESSION_ID : `${NOTES_SESSION_ID}-${ownerId}`;
}

/** How long a writer waits for another process that is creating the notes session right now. */
const CREATION_WAIT_MS = 5_000;
const POLL_MS = 20;

/** Creations in flight in this process, so concurrent calls create once. */
const creating = new WeakMap<SessionManager, Map<string, Promise<void>>>();

/**
 * Appends `note` to the owner's notes session, creating the session with the note inside it when
 * it does not exist yet. Safe when several processes race on one store:
 *
 * - the session is created by importing a snapshot that already holds the note, so a creation is
 *   one registry row plus one atomic write, and only one creator can insert the row (the others'
 *   insert fails, or they find the row);
 * - a loser appends only after the winner's import has committed (the session then has at least
 *   the winner's note), because that import replaces the session's rows and would otherwise drop
 *   a note written in between. An empty notes session older than the wait is not being created:
 *   its notes were forgotten, and the note is appended at once.
 */
export async function appendNote(
  manager: SessionManager,
  ownerId: string | null,
  note: SessionMessage,
): Promise<void> {
  const id = notesSessionId(ownerId);
  const inFlight = creating.get(manager) ?? new Map<string, Promise<void>>();
  creating.set(manager, inFlight);
  const started = Date.now();
  for (;;) {
    const running = inFlight.get(id);
    if (running) await running.catch(() => {});
    const info = await manager.get(id);
    if (info) {
      const session = manager.getSession(id);
      const young = Date.now() - Date.parse(info.created_at) < CREATION_WAIT_MS;
      if (
        (await session.countMessages()) > 0 ||
        !young ||
        Date.now() - started > CREATION_WAIT_MS
      ) {
        await session.appendMessage(note);
        return;
      }
      await sleep(POLL_MS);
      continue;
    }
    const creation = create(manager, id, ownerId, note);
    inFlight.set(id, creation);
    try {
      await creation;
      return;
    } catch (error) {
      // Another process inserted the row first: append to its session instead.
      if (!(await manager.get(id))) throw error;
    } finally {
      if (inFlight.get(id) === creation) inFlight.delete(id);
    }
  }
}

// --- Internal helpers ---

async function create(
  manager: SessionManager,
  id: string,
  ownerId: string | null,
  note: SessionMessage,
): Promise<void> {
  const now = new Date().toISOString();
  const snapshot: SessionSnapshot = {
    format: "arbor.session",
    version: 1,
    sessionId: id,
    exportedAt: now,
    messages: [
      {
        message: note,
        parentId: null,
        createdAt: note.createdAt?.toISOString() ?? now,
      },
    ],
    compactions: [],
    activeLeafId: note.id,
    info: {
      id,
      name: NOTES_SESSION_NAME,
      parent_session_id: null,
      model: null,
      source: "mcp",
      input_tokens: 0,
      output_tokens: 0,
      estimated_cost: 0,
      end_reason: null,
      created_at: now,
      updated_at: now,
    },
  };
  await manager.importSession(snapshot, ownerId !== null ? { ownerId } : {});
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
