// Reads that must answer and agree after hostile input, and cyclic parents written as raw rows.
import type { Session } from "../../../src/session/index.js";
import {
  check,
  expectIntact,
  same,
  textMessage,
  typed,
  writeAnchor,
  type HostileBackend,
} from "./hostile-support.js";

/** Every read of a session answers and agrees: history, leaf, path length, branches, export. */
export async function readsWhole(
  session: Session,
  where: string,
): Promise<void> {
  const history = await session.getHistory();
  const ids = history.map((message) => message.id);
  check(
    new Set(ids).size === ids.length,
    `no message twice in the history (${where})`,
  );
  const leaf = await session.getLatestLeaf();
  same(
    leaf?.id ?? null,
    ids.at(-1) ?? null,
    `the leaf ends the history (${where})`,
  );
  same(
    await session.getPathLength(),
    history.filter((m) => !m.id.startsWith("compaction_")).length,
    `path length (${where})`,
  );
  if (leaf) await session.getBranches(leaf.id);
  await session.exportSnapshot();
}

/** Cyclic parents as raw rows (SQL backends): every read terminates with a sane path. */
export async function cyclicParents(
  backend: HostileBackend & Required<Pick<HostileBackend, "insertRaw">>,
): Promise<void> {
  const manager = backend.manager();
  const anchor = await writeAnchor(manager);
  const shapes: Record<
    string,
    Array<{ id: string; parentId: string | null }>
  > = {
    "a self-loop": [{ id: "s", parentId: "s" }],
    "a two-cycle": [
      { id: "a", parentId: "b" },
      { id: "b", parentId: "a" },
    ],
    "a chain into a cycle": [
      { id: "r", parentId: null },
      { id: "x", parentId: "z" },
      { id: "y", parentId: "x" },
      { id: "z", parentId: "y" },
      { id: "tail", parentId: "z" },
    ],
    "a long cycle": Array.from({ length: 500 }, (_, i) => ({
      id: `c${i}`,
      parentId: `c${(i + 1) % 500}`,
    })),
  };
  for (const [shape, rows] of Object.entries(shapes)) {
    const { id } = await manager.create(shape);
    await backend.insertRaw(
      id,
      rows.map((row) => ({ ...row, text: `cycle ${row.id} walrus` })),
    );
    // A new manager: nothing cached from the write.
    const session = backend.manager().getSession(id);
    for (const row of rows.slice(0, 5)) {
      const history = await typed(`${shape}: history of ${row.id}`, () =>
        session.getHistory(row.id),
      );
      if (history.ok) {
        const ids = history.value.map((m) => m.id);
        check(
          new Set(ids).size === ids.length,
          `${shape}: the path to ${row.id} has no message twice (${ids.join(",")})`,
        );
        check(
          ids.length <= rows.length,
          `${shape}: the path to ${row.id} is no longer than the session`,
        );
      }
      await typed(`${shape}: path length of ${row.id}`, () =>
        session.getPathLength(row.id),
      );
      await typed(`${shape}: branches of ${row.id}`, () =>
        session.getBranches(row.id),
      );
    }
    await typed(`${shape}: latest leaf`, () => session.getLatestLeaf());
    await typed(`${shape}: history`, () => session.getHistory());
    await typed(`${shape}: search`, () => session.search("walrus"));
    await typed(`${shape}: append`, () =>
      session.appendMessage(textMessage(`${shape}-new`, "after the cycle")),
    );
    await typed(`${shape}: export`, () => manager.exportSession(id));
    await typed(`${shape}: fork`, () => manager.fork(id, rows[0]!.id, "fork"));
    await typed(`${shape}: delete`, () =>
      session.deleteMessages([rows[0]!.id]),
    );
    await typed(`${shape}: erase`, () =>
      manager.erase({ sessionId: id, messageIds: [rows.at(-1)!.id] }),
    );
    await typed(`${shape}: prune`, () =>
      manager.prune({
        abandonedBranchesOlderThan: new Date(Date.now() + 60_000),
        dryRun: true,
      }),
    );
    await typed(`${shape}: erase the session`, () =>
      manager.erase({ sessionId: id }),
    );
    await expectIntact(backend, anchor, shape);
  }
}
