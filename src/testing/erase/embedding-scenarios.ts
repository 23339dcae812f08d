// Erase with embeddings on (docs/search.md): the vectors and queued embeddings of the erased
// messages and sessions go with them. On backends that keep them in tables (SQLite, PostgreSQL,
// Durable Objects) every row of every table is scanned for them; the in-memory store keeps them
// beside its maps, where semantic search proves them gone. Runs in Node and, bundled, in workerd.
import { fakeEmbedder } from "../fake-embedder.js";
import { check, same, text, type EraseBackend } from "./erase-support.js";

/** Erase of two messages, then of the session: no vector or queue row of them is left. */
export async function eraseRemovesEmbeddings(
  backend: EraseBackend,
): Promise<void> {
  const manager = backend.manager().withEmbeddings(fakeEmbedder());
  const { id } = await manager.create("vectors", { ownerId: "dora" });
  const kept = await manager.create("kept vectors", { ownerId: "dora" });
  const session = manager.getSession(id);
  await session.appendMessage(text("e1", "user", "We ship on Friday"));
  await session.appendMessage(text("e2", "assistant", "The cat sleeps"));
  await session.appendMessage(text("e3", "user", "A truck is outside"));
  await manager
    .getSession(kept.id)
    .appendMessage(text("k1", "user", "We ship on Monday"));
  await manager.flushEmbeddings();
  // A write whose embedding is still queued when the erase runs.
  await session.appendMessage(text("e4", "assistant", "The kitten plays"));
  const tabled = (await backend.dump()).includes("arbor_embeddings");
  if (tabled) {
    // e4 is queued, or, when the worker is mid-way through it, queued and embedded at once.
    const before = await traces(backend, id);
    check(
      before === 4 || before === 5,
      `three vectors and e4's queue row (and perhaps its vector) before: got ${before}`,
    );
  }

  const first = await manager.erase({
    sessionId: id,
    messageIds: ["e1", "e4"],
  });
  // e1's vector and e4's queued item (or its vector, if the worker got to it first).
  same(
    first.vectors + first.queuedEmbeddings,
    2,
    "the receipt counts the vector and the queued item",
  );
  check(first.vectors >= 1, "e1's vector is counted");
  if (tabled) same(await traces(backend, id), 2, "two vectors left");
  same(
    (await session.search("launch", { mode: "semantic" })).map((h) => h.id),
    [],
    "the erased message is not found by meaning",
  );
  const whole = await manager.erase({ sessionId: id });
  same(
    [whole.vectors, whole.queuedEmbeddings],
    [2, 0],
    "the receipt counts the session's two remaining vectors",
  );
  if (tabled) same(await traces(backend, id), 0, "no row of the session");
  const other = await manager
    .getSession(kept.id)
    .search("launch", { mode: "semantic" });
  same(
    other.map((h) => h.id),
    ["k1"],
    "the other session's vector is kept",
  );
  if (tabled) check((await traces(backend, kept.id)) === 1, "kept vector row");
}

/** An embedding in flight while its message is erased lands nowhere once the embedder answers. */
export async function eraseRacesEmbedding(
  backend: EraseBackend,
): Promise<void> {
  const fake = fakeEmbedder();
  let started!: () => void;
  const inFlight = new Promise<void>((resolve) => (started = resolve));
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  // A fake embedder held open until the erase has finished.
  const slow = async (texts: string[]) => {
    started();
    await gate;
    return fake(texts);
  };
  const manager = backend.manager().withEmbeddings(slow);
  const { id } = await manager.create("racing", { ownerId: "erin" });
  const session = manager.getSession(id);
  await session.appendMessage(text("r1", "user", "We ship on Friday"));
  await inFlight;
  // The embedder answers while the erase runs: erase never waits for it, and the late vector is dropped.
  const erasing = manager.erase({ sessionId: id, messageIds: ["r1"] });
  await new Promise((resolve) => setTimeout(resolve, 20));
  release();
  const receipt = await erasing;
  same(receipt.messages, 1, "the message is erased while being embedded");
  await manager.flushEmbeddings();
  await session.appendMessage(text("r2", "user", "The cat sleeps"));
  await manager.flushEmbeddings();
  same(
    (await session.search("launch", { mode: "semantic" })).map((h) => h.id),
    [],
    "the late vector of the erased message did not land",
  );
  if ((await backend.dump()).includes("arbor_embeddings"))
    same(await traces(backend, id), 1, "only r2's vector is stored");
}

/**
 * Rows of the embedding tables that name the session, in any backend's dump: a SQLite line
 * (`arbor_embeddings: <id> | …`) or a PostgreSQL row (`{"table":"arbor_embeddings","row":"{…<id>`).
 */
async function traces(
  backend: EraseBackend,
  sessionId: string,
): Promise<number> {
  const dump = await backend.dump();
  let count = 0;
  for (
    let at = dump.indexOf(sessionId);
    at >= 0;
    at = dump.indexOf(sessionId, at + 1)
  ) {
    if (
      /arbor_embedding(s|_queue)[^\n|]{0,40}$/.test(
        dump.slice(Math.max(0, at - 60), at),
      )
    )
      count++;
  }
  return count;
}
