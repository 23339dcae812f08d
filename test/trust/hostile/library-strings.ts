// Hostile strings for the library cases: SQL and full-text injection strings and Unicode edges
// (NUL, lone surrogates) as ids, texts, names, owners, metadata and search queries.
import {
  check,
  expectIntact,
  same,
  textMessage,
  textOf,
  typed,
  writeAnchor,
  type HostileBackend,
} from "./hostile-support.js";
import { readsWhole } from "./reads-whole.js";

/** Strings that break naive SQL, FTS5 and tsquery handling. */
export const INJECTIONS = [
  '"',
  "'",
  "''",
  '"unbalanced',
  "*",
  "a*",
  "NEAR",
  "NEAR(a b, 2)",
  "OR",
  "a OR",
  "AND NOT",
  "--",
  "; DROP TABLE assistant_messages; --",
  "'); DROP TABLE assistant_messages; --",
  "1' OR '1'='1",
  "content:secret",
  "session_id:x",
  "id:anchor-1",
  "{content role}: x",
  "^start",
  "(",
  ")",
  "a:b:c",
  "-",
  "!",
  "\\",
  "%",
  "_",
  "$1",
  "?",
  "&|!<->",
  "a & | b",
  "x".repeat(2000),
];

/** Strings with a NUL, lone surrogates, and both. */
export const UNICODE_EDGES = [
  "nul\u0000inside",
  "\u0000",
  "\ud800",
  "lone \udc00 low",
  "\ud83d",
  "pair \ud83d\ude00 ok",
  "mixed \u0000 \ud800 \udfff",
  "\ufffe\uffff",
];

/** NUL and lone surrogates in every string the library takes. */
export async function unicodeEdges(backend: HostileBackend): Promise<void> {
  const manager = backend.manager();
  const anchor = await writeAnchor(manager);
  for (const [index, edge] of UNICODE_EDGES.entries()) {
    const where = `edge ${index} ${JSON.stringify(edge)}`;
    const created = await typed(`create ${where}`, () =>
      manager.create(edge, { ownerId: edge, metadata: { [edge]: edge } }),
    );
    const sessionId = created.ok
      ? created.value.id
      : (await manager.create("edges")).id;
    const session = manager.getSession(sessionId);
    const asText = await typed(`text ${where}`, () =>
      session.appendMessage(textMessage(`t${index}`, `text ${edge} end`)),
    );
    check(asText.ok, `a text with ${where} is stored`);
    if (asText.ok)
      same(
        textOf(await session.getMessage(`t${index}`)),
        `text ${edge} end`,
        `text read back, ${where}`,
      );
    const asId = await typed(`id ${where}`, () =>
      session.appendMessage(textMessage(edge, "an odd id")),
    );
    if (asId.ok) {
      const read = await typed(`get ${where}`, () => session.getMessage(edge));
      check(
        read.ok && read.value?.id === edge,
        `message with id ${JSON.stringify(edge)} reads back by that id`,
      );
    }
    await typed(`search ${where}`, () => session.search(edge));
    await typed(`search all ${where}`, () => manager.search(edge));
    await typed(`metadata ${where}`, () =>
      manager.setMetadata(sessionId, edge, edge),
    );
    await typed(`rename ${where}`, () => manager.rename(sessionId, edge));
    await typed(`erase ${where}`, () =>
      manager.erase({ sessionId, messageIds: [edge] }),
    );
    await typed(`export ${where}`, async () =>
      manager.importSession(await manager.exportSession(sessionId), {
        newId: true,
      }),
    );
    await readsWhole(session, where);
    await expectIntact(backend, anchor, where);
  }
}

/** Injection strings as ids, texts, names, owners, metadata and queries. */
export async function injections(backend: HostileBackend): Promise<void> {
  const manager = backend.manager();
  const anchor = await writeAnchor(manager);
  const { id } = await manager.create("injections", { ownerId: "inj" });
  const session = manager.getSession(id);
  for (const [index, evil] of INJECTIONS.entries()) {
    const where = `injection ${JSON.stringify(evil.slice(0, 40))}`;
    await session.appendMessage(textMessage(evil, `said ${evil} here`));
    same(
      textOf(await session.getMessage(evil)),
      `said ${evil} here`,
      `${where} as id and text`,
    );
    await session.appendMessage(textMessage(`plain-${index}`, evil));
    for (const query of [evil, `${evil} said`, `said ${evil}`]) {
      const hits = await typed(`search ${where}`, () => session.search(query));
      if (hits.ok)
        for (const hit of hits.value)
          check(
            hit.id !== anchor.messageId,
            `a search in one session never returns another's message (${where})`,
          );
      await typed(`search all ${where}`, () =>
        manager.search(query, { ownerId: "inj" }),
      );
    }
    const named = await typed(`create ${where}`, () =>
      manager.create(evil, { ownerId: evil, metadata: { [evil]: evil } }),
    );
    if (named.ok) {
      same((await manager.get(named.value.id))?.name, evil, `${where} as name`);
      same(await manager.getOwner(named.value.id), evil, `${where} as owner`);
      same(
        await manager.getMetadata(named.value.id, evil),
        evil,
        `${where} as metadata`,
      );
      same(
        (await manager.list({ ownerId: evil })).map((info) => info.id),
        [named.value.id],
        `${where} as an owner filter`,
      );
    }
  }
  // Every message still reads, in order, and the last search words still match only themselves.
  same(
    (await session.getHistory()).length,
    INJECTIONS.length * 2,
    "all injected messages are in the history",
  );
  same(
    (await session.search("said")).length > 0,
    true,
    "plain search still works",
  );
  await readsWhole(session, "injections");
  await expectIntact(backend, anchor, "injections");
}
