// Model-based property test: random sequences of writes go to a real SessionManager and to the
// plain TreeModel, and after every step the backend must answer as the model does. Runs in Node
// (vitest) and, bundled, inside workerd; it depends on fast-check and Arbor only.
import fc from "fast-check";
import type {
  SessionManager,
  SessionMessage,
} from "../../../src/session/index.js";
import {
  compareCopies,
  compareEverything,
  compareFork,
  compareImport,
  entries,
  expectSame,
  fakeCompaction,
  WORDS,
} from "./model-compare.js";
import { TreeModel } from "./tree-model.js";

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
  | { op: "compact"; leaf: "active" | number; a: number; b: number }
  | { op: "fork"; pick: number }
  | { op: "exportImport"; continueOnCopy: boolean }
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
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("compact" as const),
      leaf: fc.oneof(
        { weight: 3, arbitrary: fc.constant("active" as const) },
        { weight: 1, arbitrary: fc.nat(64) },
      ),
      a: fc.nat(64),
      b: fc.nat(64),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("fork" as const),
      pick: fc.nat(64),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("exportImport" as const),
      continueOnCopy: fc.boolean(),
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
  let manager = backend.manager();
  const owner = `model-${crypto.randomUUID()}`;
  let { id: sessionId } = await manager.create("model run", {
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
      case "compact": {
        const leaf =
          op.leaf === "active" ? undefined : pick(op.leaf, model.leaves());
        const summary = `compacted ${overlaysMade++}`;
        const expected = model.compact(leaf ?? null, op.a, op.b, summary);
        session.onCompaction(fakeCompaction(op.a, op.b, summary));
        const result = await session.compact(leaf);
        expectSame(
          result && [result.fromMessageId, result.toMessageId],
          expected && [expected.from, expected.to],
          `compaction range after ${where}`,
        );
        break;
      }
      case "fork": {
        const at = pick(op.pick);
        if (at === undefined) continue;
        await compareFork(manager, sessionId, model, at, where);
        break;
      }
      case "exportImport": {
        const copyId = await compareImport(manager, sessionId, model, where);
        if (op.continueOnCopy) {
          // Later ops write to the copy: it must behave as the original would have.
          sessionId = copyId;
          session = manager.getSession(copyId);
        } else await manager.delete(copyId);
        break;
      }
      case "reopen":
        // A restart: the old manager (and its sessions' cached branch pointers) is gone.
        manager = backend.manager();
        session = manager.getSession(sessionId);
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
  // Erasing the tenant removes every session the sequence left (and keeps long runs linear).
  await manager.erase({ ownerId: owner });
  expectSame(
    await manager.list({ ownerId: owner }),
    [],
    `sessions of the tenant after erase, ${JSON.stringify(ops)}`,
  );
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
