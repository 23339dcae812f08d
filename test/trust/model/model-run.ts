// Model-based property test: random sequences of writes go to a real SessionManager and to the
// plain TreeModel, and after every step the backend must answer as the model does. Runs in Node
// (vitest) and, bundled, inside workerd; it depends on fast-check and Arbor only.
import fc from "fast-check";
import type {
  Session,
  SessionManager,
  SessionMessage,
} from "../../../src/session/index.js";
import { TreeModel } from "./tree-model.js";

const WORDS = ["harbor", "meadow", "copper", "lantern", "violet", "glacier"];

export type Op =
  | {
      op: "append";
      parent: "auto" | "root" | "missing" | number;
      words: number[];
    }
  | { op: "duplicate"; pick: number }
  | { op: "update"; pick: number; words: number[] }
  | { op: "delete"; picks: number[] }
  | { op: "erase"; picks: number[] }
  | { op: "clear" }
  | { op: "switch"; pick: number }
  | { op: "overlay"; a: number; b: number }
  | { op: "removeOverlay"; pick: number }
  | { op: "reopen" };

const words = fc.array(fc.nat(WORDS.length - 1), {
  minLength: 1,
  maxLength: 3,
});

export const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      op: fc.constant("append" as const),
      parent: fc.oneof(
        { weight: 5, arbitrary: fc.constant("auto" as const) },
        { weight: 3, arbitrary: fc.nat(64) },
        { weight: 1, arbitrary: fc.constant("root" as const) },
        { weight: 1, arbitrary: fc.constant("missing" as const) },
      ),
      words,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("duplicate" as const),
      pick: fc.nat(64),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("update" as const),
      pick: fc.nat(64),
      words,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("delete" as const),
      picks: fc.array(fc.nat(64), { minLength: 1, maxLength: 3 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("erase" as const),
      picks: fc.array(fc.nat(64), { minLength: 1, maxLength: 3 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ op: "clear" as const }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("switch" as const),
      pick: fc.nat(64),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("overlay" as const),
      a: fc.nat(64),
      b: fc.nat(64),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("removeOverlay" as const),
      pick: fc.nat(64),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ op: "reopen" as const }) },
);

/** A sequence is 1–40 operations; clears are rare enough that trees grow. */
export const sequenceArbitrary = fc.array(opArbitrary, {
  minLength: 1,
  maxLength: 40,
});

/** What the property needs of a backend: managers over one storage (a restart is a new one). */
export interface ModelBackend {
  manager(): SessionManager;
}

/** Runs `runs` random sequences; each gets a new session of the same storage. */
export async function checkAgainstModel(
  backend: ModelBackend,
  options: { runs: number; seed?: number },
): Promise<void> {
  await fc.assert(
    fc.asyncProperty(sequenceArbitrary, (ops) => runSequence(backend, ops)),
    { numRuns: options.runs, seed: options.seed, endOnFailure: false },
  );
}

/** One sequence: apply each op to both sides, compare after each, then a full comparison. */
export async function runSequence(
  backend: ModelBackend,
  ops: readonly Op[],
): Promise<void> {
  const manager = backend.manager();
  const owner = `model-${crypto.randomUUID()}`;
  const { id: sessionId } = await manager.create("model run", {
    ownerId: owner,
  });
  let session = manager.getSession(sessionId);
  const model = new TreeModel();
  let counter = 0;
  let overlaysMade = 0;
  const pick = (index: number, from = model.ids()) =>
    from.length === 0 ? undefined : from[index % from.length];

  for (const [step, op] of ops.entries()) {
    const where = `step ${step} (${JSON.stringify(op)}) of ${JSON.stringify(ops)}`;
    switch (op.op) {
      case "append": {
        const id = `m${counter++}`;
        const text = textOf(op.words, id);
        const parent =
          op.parent === "auto"
            ? undefined
            : op.parent === "root"
              ? null
              : op.parent === "missing"
                ? "no-such-message"
                : (pick(op.parent) ?? null);
        model.append(id, text, parent);
        await session.appendMessage(message(id, text, counter), parent);
        break;
      }
      case "duplicate": {
        const id = pick(op.pick);
        if (id === undefined) continue;
        await session.appendMessage(message(id, "a second write", 0));
        break;
      }
      case "update": {
        const id = pick(op.pick);
        if (id === undefined) continue;
        const text = textOf(op.words, id);
        model.update(id, text);
        await session.updateMessage(message(id, text, counter));
        break;
      }
      case "delete": {
        const ids = op.picks.map((index) => pick(index) ?? "nothing");
        model.delete(ids);
        await session.deleteMessages(ids);
        break;
      }
      case "erase": {
        const ids = op.picks.map((index) => pick(index) ?? "nothing");
        model.erase(ids);
        await manager.erase({ sessionId, messageIds: ids });
        break;
      }
      case "clear":
        model.clear();
        await session.clearMessages();
        break;
      case "switch": {
        const id = pick(op.pick);
        if (id === undefined) continue;
        model.switchBranch(id);
        await session.switchBranch(id);
        break;
      }
      case "overlay": {
        const leaf = model.activeLeaf();
        if (leaf === null) continue;
        const path = model.path(leaf);
        const [from, to] = [op.a % path.length, op.b % path.length].sort(
          (x, y) => x - y,
        );
        const summary = `summary ${overlaysMade++}`;
        model.addOverlay(path[from!]!, path[to!]!, summary);
        await session.addCompaction(summary, path[from!]!, path[to!]!);
        break;
      }
      case "removeOverlay": {
        const stored = await session.getCompactions();
        if (stored.length === 0) continue;
        const index = op.pick % stored.length;
        model.removeOverlay(index);
        await session.removeCompaction(stored[index]!.id);
        break;
      }
      case "reopen":
        session = backend.manager().getSession(sessionId);
        break;
    }
    expectSame(
      entries(await session.getHistory()),
      model.history(),
      `active history after ${where}`,
    );
    expectSame(
      (await session.getLatestLeaf())?.id ?? null,
      model.activeLeaf(),
      `latest leaf after ${where}`,
    );
  }
  await compareEverything(session, model, JSON.stringify(ops));
  await compareCopies(manager, sessionId, model, JSON.stringify(ops));
  // Every message is older than this cutoff: prune leaves the active path alone.
  model.pruneBranches();
  await manager.prune({
    ownerId: owner,
    abandonedBranchesOlderThan: new Date(Date.now() + 60_000),
  });
  await compareEverything(
    manager.getSession(sessionId),
    model,
    `${JSON.stringify(ops)}, then prune`,
  );
}

/** A fork reads as the source did at the fork point; an exported and imported copy reads the same everywhere. */
async function compareCopies(
  manager: SessionManager,
  sessionId: string,
  model: TreeModel,
  ops: string,
): Promise<void> {
  const at = model.ids().at(-1);
  if (at !== undefined) {
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
  }
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
}

async function compareEverything(
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

function textOf(indexes: readonly number[], id: string): string {
  return [...indexes.map((index) => WORDS[index]!), `tag${id}`].join(" ");
}

function message(id: string, text: string, n: number): SessionMessage {
  return {
    id,
    role: n % 2 === 0 ? "assistant" : "user",
    parts: [{ type: "text", text }],
  };
}

function textOfMessage(message: SessionMessage | null): string | null {
  return message?.parts.map((part) => part.text ?? "").join("") ?? null;
}

/** A read path as the model writes it: ids, and overlays by their summary. */
function entries(history: readonly SessionMessage[]): string[] {
  return history.map((message) =>
    message.id.startsWith("compaction_")
      ? `summary:${textOfMessage(message)}`
      : message.id,
  );
}

function expectSame(actual: unknown, expected: unknown, what: string): void {
  const [a, b] = [JSON.stringify(actual), JSON.stringify(expected)];
  if (a !== b) throw new Error(`${what}: got ${a}, the model says ${b}`);
}
