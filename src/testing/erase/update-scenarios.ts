// Updates and deletes on one backend: the replaced and the deleted text leave no term in any
// table, search index internals included (on SQLite, FTS5 `secure-delete` is on for good since
// schema v7; docs/behavior/erase-and-retention.md). Runs in Node and, bundled, inside workerd.
import {
  expectNoTrace,
  expectTrace,
  same,
  text,
  unique,
  type EraseBackend,
} from "./erase-support.js";

/**
 * FTS5 stores a term after the first on a page as "shared prefix length + suffix", so a word may
 * not appear whole in a dump of its segments; its unique tail always does.
 */
function tail(word: string): string {
  return word.toLowerCase().slice(-9);
}

/** An update, then a delete: neither the replaced nor the deleted text is left anywhere. */
export async function updateAndDeleteLeaveNoTerms(
  backend: EraseBackend,
): Promise<void> {
  const manager = backend.manager();
  const replaced = `replaced${unique("R")}`;
  const deleted = `deleted${unique("D")}`;
  const current = `current${unique("C")}`;
  const { id } = await manager.create("updates", { ownerId: "carol" });
  const session = manager.getSession(id);
  await session.appendMessage(text("u1", "user", `the ${replaced} plan`));
  await session.appendMessage(text("a1", "assistant", `a ${deleted} note`));
  await session.appendMessage(text("u2", "user", "the plan stays"));
  // A search catches the index up, so both texts are in it before they change.
  same(
    (await session.search(replaced)).map((hit) => hit.id),
    ["u1"],
    "indexed before the update",
  );
  same(
    (await session.search(deleted)).map((hit) => hit.id),
    ["a1"],
    "indexed before the delete",
  );
  await session.updateMessage(text("u1", "user", `the ${current} plan`));
  await session.deleteMessages(["a1"]);
  same(
    (await session.search(current)).map((hit) => hit.id),
    ["u1"],
    "the new text is found",
  );
  same(await session.search(replaced), [], "the replaced text is not found");
  same(await session.search(deleted), [], "the deleted text is not found");
  same(
    (await session.search("plan")).map((hit) => hit.id).sort(),
    ["u1", "u2"],
    "the other words are found",
  );
  // The audit sink keeps what was written, by design (erase removes it); the storage must not.
  const storage = { ...backend, dump: () => backend.dumpWithoutAudit() };
  await expectTrace(storage, [tail(current)]);
  await expectNoTrace(storage, tail(replaced), "after an update:");
  await expectNoTrace(storage, tail(deleted), "after a delete:");
  await manager.delete(id);
}
