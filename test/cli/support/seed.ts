// Builds the database the CLI tests read: one session with a fork (a regenerated answer), a
// summary overlay, an owner and a switched active branch, written through the public API.
import { SessionManager } from "../../../src/session/index.js";
import { openSqlite } from "../../../src/sqlite/index.js";

const text = (value: string) => [{ type: "text", text: value }];

/** The ids the tests assert on. */
export interface Seeded {
  sessionId: string;
  otherSessionId: string;
}

/** The message ids the tests assert on. */
export const SEEDED = {
  /** The active leaf: the first answer to u2, switched back to after the newer branch was written. */
  activeLeaf: "a2",
  /** The newer branch's leaf, not active. */
  otherLeaf: "u3",
};

/**
 * Writes into a SQLite file:
 *   u1 → a1 → u2 → a2               (first answer: "Thursday works"; switched back to: active)
 *                 → a2b → u3        (regenerated answer, then a follow-up; newer)
 * plus an overlay summarizing u1 … a1, and a second small session.
 */
export async function seedBranchedDatabase(file: string): Promise<Seeded> {
  const database = openSqlite(file);
  try {
    const manager = SessionManager.create(database);
    const trip = await manager.create("Deployment planning", {
      ownerId: "acme",
    });
    const session = manager.getSession(trip.id);
    await session.appendMessage({
      id: "u1",
      role: "user",
      parts: text("When is the production deployment?"),
    });
    await session.appendMessage({
      id: "a1",
      role: "assistant",
      parts: text("The deployment to production is on Friday."),
    });
    await session.appendMessage({
      id: "u2",
      role: "user",
      parts: text("Can we move it to Thursday?"),
    });
    await session.appendMessage({
      id: "a2",
      role: "assistant",
      parts: text("Thursday works, I will tell the team."),
    });
    await session.appendMessage(
      {
        id: "a2b",
        role: "assistant",
        parts: text("Thursday is possible if QA signs off by Wednesday."),
      },
      "u2",
    );
    await session.appendMessage({
      id: "u3",
      role: "user",
      parts: text("Then ask QA about the marmalade release."),
    });
    await session.addCompaction(
      "The user asked when the deployment is; it is on Friday.",
      "u1",
      "a1",
    );

    const notes = await manager.create("Grocery notes", {
      ownerId: "someone-else",
    });
    await manager.append(notes.id, {
      id: "n1",
      role: "user",
      parts: text("Buy oranges for marmalade."),
    });
    await session.switchBranch(SEEDED.activeLeaf);
    return { sessionId: trip.id, otherSessionId: notes.id };
  } finally {
    database.close();
  }
}
