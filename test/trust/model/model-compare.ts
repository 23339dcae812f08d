// The comparisons of the model-based test: every read of a session, a fork and an exported and
// imported copy against the TreeModel, and the fake summarizer of the `compact` op.
import type {
  Session,
  SessionManager,
  SessionMessage,
} from "../../../src/session/index.js";
import type { TreeModel } from "./tree-model.js";

/** The words texts are made of; the first two are searched for. */
export const WORDS = [
  "harbor",
  "meadow",
  "copper",
  "lantern",
  "violet",
  "glacier",
];

/** A fork at the newest message and an exported and imported copy both read as the model says. */
export async function compareCopies(
  manager: SessionManager,
  sessionId: string,
  model: TreeModel,
  ops: string,
): Promise<void> {
  const at = model.ids().at(-1);
  if (at !== undefined) await compareFork(manager, sessionId, model, at, ops);
  await manager.delete(await compareImport(manager, sessionId, model, ops));
}

/** A fork at `at` reads (by text: a fork has new ids) as the model's history at `at`. */
export async function compareFork(
  manager: SessionManager,
  sessionId: string,
  model: TreeModel,
  at: string,
  ops: string,
): Promise<void> {
  const fork = await manager.fork(sessionId, at, "fork");
  const texts = model
    .history(at)
    .map((entry) =>
      entry.startsWith("summary:") ? entry : model.rows.get(entry)!.text,
    );
  expectSame(
    (await manager.getSession(fork.id).getHistory()).map((message) =>
      message.id.startsWith("compaction_")
        ? `summary:${textOfMessage(message)}`
        : textOfMessage(message),
    ),
    texts,
    `fork at ${at} after ${ops}`,
  );
  await manager.delete(fork.id);
}

/** An exported and imported copy reads the same on every leaf and the same active path; its id. */
export async function compareImport(
  manager: SessionManager,
  sessionId: string,
  model: TreeModel,
  ops: string,
): Promise<string> {
  const copy = await manager.importSession(
    await manager.exportSession(sessionId),
    { newId: true },
  );
  const imported = manager.getSession(copy.id);
  for (const leaf of model.leaves())
    expectSame(
      entries(await imported.getHistory(leaf)),
      model.history(leaf),
      `imported copy, history of ${leaf} after ${ops}`,
    );
  expectSame(
    entries(await imported.getHistory()),
    model.history(),
    `imported copy, active history after ${ops}`,
  );
  return copy.id;
}

/**
 * The fake summarizer of the `compact` op: picks its range by position among the real messages
 * of the history it is given (so the model can predict it) and summarizes with a fixed text.
 */
export function fakeCompaction(a: number, b: number, summary: string) {
  return async (history: SessionMessage[]) => {
    const real = history.filter(
      (message) => !message.id.startsWith("compaction_"),
    );
    if (real.length === 0) return null;
    const [from, to] = [a % real.length, b % real.length].sort((x, y) => x - y);
    return {
      summary,
      fromMessageId: real[from!]!.id,
      toMessageId: real[to!]!.id,
    };
  };
}

/** Every leaf's history, every message's text and children, the path length and search. */
export async function compareEverything(
  session: Session,
  model: TreeModel,
  ops: string,
): Promise<void> {
  for (const leaf of model.leaves())
    expectSame(
      entries(await session.getHistory(leaf)),
      model.history(leaf),
      `history of leaf ${leaf} after ${ops}`,
    );
  for (const [id, row] of model.rows) {
    expectSame(
      textOfMessage(await session.getMessage(id)),
      row.text,
      `text of ${id} after ${ops}`,
    );
    expectSame(
      (await session.getBranches(id)).map((child) => child.id),
      model.children(id),
      `children of ${id} after ${ops}`,
    );
  }
  expectSame(
    await session.getPathLength(),
    model.activeLeaf() === null ? 0 : model.path(model.activeLeaf()!).length,
    `path length after ${ops}`,
  );
  for (const word of WORDS.slice(0, 2)) {
    const found = (await session.search(word, { limit: 1000 }))
      .map((hit) => hit.id)
      .sort();
    const expected = [...model.rows]
      .filter(([, row]) => row.text.split(" ").includes(word))
      .map(([id]) => id)
      .sort();
    expectSame(found, expected, `search "${word}" after ${ops}`);
  }
}

export function textOfMessage(message: SessionMessage | null): string | null {
  return message?.parts.map((part) => part.text ?? "").join("") ?? null;
}

/** A read path as the model writes it: ids, and overlays by their summary. */
export function entries(history: readonly SessionMessage[]): string[] {
  return history.map((message) =>
    message.id.startsWith("compaction_")
      ? `summary:${textOfMessage(message)}`
      : message.id,
  );
}

export function expectSame(
  actual: unknown,
  expected: unknown,
  what: string,
): void {
  const [a, b] = [JSON.stringify(actual), JSON.stringify(expected)];
  if (a !== b) throw new Error(`${what}: got ${a}, the model says ${b}`);
}
