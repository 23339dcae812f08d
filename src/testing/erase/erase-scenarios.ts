// Erase and prune on one backend: sessions written with distinctive secret text (messages, an
// overlay that summarizes them, a block written from the session with history, attachments, audit
// events, config), erased, then every table of the backend is scanned for any trace of the secret
// while the other sessions' rows stay. Runs in Node (vitest) and, bundled, inside workerd: it
// imports Arbor only, and reports a failure by throwing.
import {
  attachmentsOf,
  check,
  deferred,
  expectCounts,
  expectNoTrace,
  expectTrace,
  filePart,
  same,
  snapshotOf,
  text,
  toolPart,
  unique,
  writeKeptSession,
  writeSecretSession,
  type EraseBackend,
  type ToolSet,
} from "./erase-support.js";
import { pruneByAgeAndBranches, pruneKeepLatest } from "./prune-scenarios.js";
import { updateAndDeleteLeaveNoTerms } from "./update-scenarios.js";
import {
  eraseRacesEmbedding,
  eraseRemovesEmbeddings,
} from "./embedding-scenarios.js";

export { deepText, type EraseBackend } from "./erase-support.js";

export type Scenario = (backend: EraseBackend) => Promise<void>;

/** Every scenario, by name. */
export const ERASE_SCENARIOS: Record<string, Scenario> = {
  "erase { sessionId } leaves no trace of the session, and the others whole":
    eraseSession,
  "erase { sessionId, messageIds } drops what quotes them and keeps the rest":
    eraseMessages,
  "erase { ownerId } erases every session of the tenant only": eraseTenant,
  "erase racing a compaction (fake summarizer): no summary comes back":
    eraseRacingCompaction,
  "erase racing appends: nothing lost, one chain, nothing erased comes back":
    eraseRacingAppends,
  "prune: dryRun counts equal the real counts, active paths stay whole":
    pruneByAgeAndBranches,
  "prune keepLatest keeps the newest sessions of the tenant": pruneKeepLatest,
  "update and delete leave no term of the old text, index internals included":
    updateAndDeleteLeaveNoTerms,
  "erase removes vectors and queued embeddings": eraseRemovesEmbeddings,
  "an embedding in flight during an erase stores nothing afterwards":
    eraseRacesEmbedding,
};

async function eraseSession(backend: EraseBackend): Promise<void> {
  const manager = backend.manager();
  const tag = unique("S1");
  const secret = `SECRET${tag}`;
  const keep = `KEEP${tag}`;
  const target = await writeSecretSession(manager, secret, keep, "alice");
  const other = await writeKeptSession(manager, keep, "bob");
  const before = await snapshotOf(manager, other);
  const auditEvents = await backend.auditCount(target);

  const receipt = await manager.erase({ sessionId: target });
  expectCounts(receipt, {
    sessions: 1,
    messages: 3,
    overlays: 1,
    indexRows: backend.expects.separateIndex ? 3 : 0,
    // two of memory, one of the block created in the session
    blockVersions: 3,
    attachments: attachmentsOf(backend, 1),
    auditEvents,
    // owner, metadata, the created block's definition
    configRows: 3,
    contextRows: 2,
    // three appends and the overlay, one notice per block version, and the block's creation
    changeLogRows: backend.expects.changeLog ? 8 : 0,
  });
  check(receipt.notCovered.length === 0, "notCovered is empty");
  check(
    auditEvents >= 4,
    `the sink held the session's events (${auditEvents})`,
  );
  await expectNoTrace(backend, secret);
  await expectTrace(backend, [`${keep}-c`, `${keep}-csum`, `${keep}-shared`]);
  check((await manager.get(target)) === null, "registry row gone");
  same(await manager.getHistory(target), [], "erased history");
  same(await snapshotOf(manager, other), before, "other session unchanged");
  check((await backend.auditCount(other)) > 0, "other session's audit kept");
  const again = await manager.erase({ sessionId: target });
  expectCounts(again, {});
}

async function eraseMessages(backend: EraseBackend): Promise<void> {
  const manager = backend.manager();
  const tag = unique("S2");
  const secret = `SECRET${tag}`;
  const keep = `KEEP${tag}`;
  const { id } = await manager.create("messages");
  const session = manager.getSession(id);
  await session.appendMessage(text("m1", "user", `${keep}-m1 harbor`));
  await session.appendMessage({
    id: "m2",
    role: "assistant",
    parts: [
      { type: "text", text: `${secret}-m2 harbor` },
      toolPart("call-m2", `${secret}-block`),
      filePart(`${secret}-attach`),
    ],
  });
  await session.appendMessage(text("m3", "user", `${keep}-m3 harbor`));
  await session.appendMessage(text("m4", "assistant", `${keep}-m4 harbor`));
  await session.addCompaction(`${secret}-summary of m1..m3`, "m1", "m3");
  await session.addCompaction(`${keep}-summary of m3..m4`, "m3", "m4");
  const tools = (await session.tools()) as ToolSet;
  await tools.set_context!.execute(
    { label: "memory", content: `${secret}-block` },
    { toolCallId: "call-m2" },
  );
  await session.replaceContextBlock("memory", `${keep}-block`);
  await session.switchBranch("m2");
  await session.search("harbor");
  await session.flushAudit();

  const receipt = await manager.erase({ sessionId: id, messageIds: ["m2"] });
  expectCounts(receipt, {
    messages: 1,
    overlays: 1,
    indexRows: backend.expects.separateIndex ? 1 : 0,
    blockVersions: 1,
    attachments: attachmentsOf(backend, 1),
    // append m2, the compaction of m1..m3
    auditEvents: 2,
    configRows: 1,
  });
  await expectNoTrace(backend, secret);
  await expectTrace(backend, [
    `${keep}-m3`,
    `${keep}-summary`,
    `${keep}-block`,
  ]);
  const history = await manager.getHistory(id);
  same(history[0]?.id, "m1", "history starts at m1");
  same(history.length, 2, "m1, then the kept summary of m3..m4");
  same(
    (await session.getBranches("m1")).map((m) => m.id),
    ["m3"],
    "m3 moved up under m1",
  );
  const versions = await session.getContextBlockHistory("memory");
  check(
    versions.every((v) => !JSON.stringify(v).includes(secret)),
    "no block version quotes the erased write",
  );
}

async function eraseTenant(backend: EraseBackend): Promise<void> {
  const manager = backend.manager();
  const tag = unique("S3");
  const secret = `SECRET${tag}`;
  const keep = `KEEP${tag}`;
  const owner = `tenant${tag}`;
  const first = await writeSecretSession(manager, `${secret}-a`, keep, owner);
  const second = await writeSecretSession(manager, `${secret}-b`, keep, owner);
  const other = await writeKeptSession(manager, keep, `other${tag}`);
  const before = await snapshotOf(manager, other);
  const events =
    (await backend.auditCount(first)) + (await backend.auditCount(second));
  const receipt = await manager.erase({ ownerId: owner });
  expectCounts(receipt, {
    sessions: 2,
    messages: 6,
    overlays: 2,
    indexRows: backend.expects.separateIndex ? 6 : 0,
    blockVersions: 6,
    // the shared attachment is still referenced by the kept session
    attachments: attachmentsOf(backend, 2),
    auditEvents: events,
    configRows: 6,
    contextRows: 4,
    changeLogRows: backend.expects.changeLog ? 16 : 0,
  });
  await expectNoTrace(backend, secret);
  same(await snapshotOf(manager, other), before, "other tenant unchanged");
  same(
    (await manager.list({ ownerId: owner })).length,
    0,
    "tenant has no session",
  );
}

async function eraseRacingCompaction(backend: EraseBackend): Promise<void> {
  for (const release of ["while the erase runs", "after the erase"] as const) {
    for (const whole of [false, true]) {
      const tag = unique("S4");
      const secret = `SECRET${tag}`;
      const gate = deferred();
      const called = deferred();
      const manager = backend.manager().onCompaction(async (messages) => {
        // The fake summarizer: quotes what it read, and waits until the test lets it answer.
        called.resolve();
        await gate.promise;
        return {
          summary: `summary of ${messages.map((m) => JSON.stringify(m.parts)).join(" ")}`,
          fromMessageId: messages[0]!.id,
          toMessageId: messages.at(-1)!.id,
        };
      });
      const { id } = await manager.create("race");
      const session = manager.getSession(id);
      await session.appendMessage(text("r1", "user", "plain r1"));
      await session.appendMessage(text("r2", "assistant", `${secret}-r2`));
      await session.appendMessage(text("r3", "user", "plain r3"));
      const compaction = session.compact().catch((error: unknown) => error);
      await called.promise;
      const erasing = manager.erase(
        // r2 is inside the range the summarizer read, not an endpoint of it.
        whole ? { sessionId: id } : { sessionId: id, messageIds: ["r2"] },
      );
      if (release === "after the erase") await erasing;
      gate.resolve();
      const receipt = await erasing;
      await compaction;
      await session.flushAudit();
      const where = `${release}, ${whole ? "whole session" : "messages"}`;
      check(receipt.messages === (whole ? 3 : 1), `${where}: receipt messages`);
      await expectNoTrace(backend, secret, where);
      if (!whole) {
        for (const overlay of await session.getCompactions())
          check(!overlay.summary.includes(secret), `${where}: overlay kept`);
        same(
          (await session.getHistory()).map((m) => m.id),
          ["r1", "r3"],
          `${where}: history`,
        );
      }
    }
  }
}

async function eraseRacingAppends(backend: EraseBackend): Promise<void> {
  const manager = backend.manager();
  const tag = unique("S5");
  const secret = `SECRET${tag}`;
  const { id } = await manager.create("appends");
  const session = manager.getSession(id);
  await session.appendMessage(text("p0", "user", "plain p0"));
  await session.appendMessage(text("p1", "assistant", `${secret}-p1`));
  const appends = Array.from({ length: 12 }, (_, n) =>
    manager.append(id, text(`q${n}`, n % 2 ? "user" : "assistant", `q${n}`)),
  );
  const erase = manager.erase({ sessionId: id, messageIds: ["p1"] });
  await Promise.all([...appends, erase]);
  await expectNoTrace(backend, secret);
  const history = (await manager.getHistory(id)).map((m) => m.id);
  same(
    [...history].sort(),
    ["p0", ...Array.from({ length: 12 }, (_, n) => `q${n}`)].sort(),
    "one chain holds every acknowledged append",
  );
}
