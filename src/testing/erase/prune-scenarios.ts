// The prune scenarios of erase-scenarios.ts: by age with abandoned branches (a dry run first,
// whose counts must equal the real ones), and by count.
import {
  attachmentsOf,
  check,
  expectCounts,
  expectNoTrace,
  expectTrace,
  filePart,
  same,
  sleep,
  text,
  unique,
  type EraseBackend,
} from "./erase-support.js";

export async function pruneByAgeAndBranches(
  backend: EraseBackend,
): Promise<void> {
  const manager = backend.manager();
  const tag = unique("S6");
  const owner = `prune${tag}`;
  const shared = filePart(`PRUNED${tag}-shared`);
  const oldA = await manager.create("old a", { ownerId: owner });
  const oldB = await manager.create("old b", { ownerId: owner });
  for (const info of [oldA, oldB]) {
    await manager.append(info.id, {
      id: "o1",
      role: "user",
      parts: [{ type: "text", text: `PRUNED${tag}-${info.name}` }, shared],
    });
    await manager.addCompaction(info.id, `PRUNED${tag} summary`, "o1", "o1");
  }
  const fresh = await manager.create("fresh", { ownerId: owner });
  const f = fresh.id;
  await manager.append(f, text("r1", "user", "r1"), null);
  await manager.append(f, text("r2", "assistant", "r2"), "r1");
  await manager.append(f, text("b1", "assistant", `PRUNED${tag}-b1`), "r1");
  await manager.append(f, text("b2", "user", `PRUNED${tag}-b2`), "b1");
  await manager.getSession(f).search("r1");
  await sleep(30);
  const cutoff = new Date();
  await sleep(30);
  await manager.append(f, text("r3", "user", "r3"), "r2");
  await manager.append(f, text("c1", "assistant", "KEPT c1"), "r1");
  await manager.append(f, text("r4", "assistant", "r4"), "r3");
  const active = await manager.getHistory(f);
  same(
    active.map((m) => m.id),
    ["r1", "r2", "r3", "r4"],
    "active path",
  );

  const options = {
    ownerId: owner,
    olderThan: cutoff,
    abandonedBranchesOlderThan: cutoff,
  };
  const dry = await manager.prune({ ...options, dryRun: true });
  await expectTrace(backend, [`PRUNED${tag}-b1`, `PRUNED${tag}-old a`]);
  const real = await manager.prune(options);
  const { prunedAt: _a, dryRun: d1, ...dryCounts } = dry;
  const { prunedAt: _b, dryRun: d2, ...realCounts } = real;
  check(d1 && !d2, "dryRun flags");
  same(dryCounts, realCounts, "dry run counts equal the real ones");
  expectCounts(real, {
    sessions: 2,
    messages: 4,
    overlays: 2,
    // o1 of each old session, b1 and b2 (the search indexed every session)
    indexRows: backend.expects.separateIndex ? 4 : 0,
    attachments: attachmentsOf(backend, 1),
    // the owner rows of the two sessions
    configRows: 2,
    // per old session the append of o1 and its compaction, and the appends of b1 and b2
    auditEvents: 6,
    changeLogRows: backend.expects.changeLog ? 4 : 0,
  });
  same(real.branches, 1, "one branch (b1 with b2)");
  same([...real.sessionIds].sort(), [oldA.id, oldB.id].sort(), "sessionIds");
  await expectNoTrace(backend, `PRUNED${tag}`);
  same(await manager.getHistory(f), active, "active path whole");
  same(
    (await manager.getSession(f).getBranches("r1")).map((m) => m.id),
    ["r2", "c1"],
    "newer branch kept",
  );
  const after = await manager.prune({ ...options, dryRun: true });
  expectCounts(after, {});
}

export async function pruneKeepLatest(backend: EraseBackend): Promise<void> {
  const manager = backend.manager();
  const owner = `keep${unique("S7")}`;
  const ids: string[] = [];
  for (let n = 0; n < 4; n++) {
    const info = await manager.create(`k${n}`, { ownerId: owner });
    await manager.append(info.id, text(`k${n}`, "user", `k${n}`));
    ids.push(info.id);
    await sleep(5);
  }
  const dry = await manager.prune({
    ownerId: owner,
    keepLatest: 2,
    dryRun: true,
  });
  same((await manager.list({ ownerId: owner })).length, 4, "dry run kept all");
  const real = await manager.prune({ ownerId: owner, keepLatest: 2 });
  same(dry.sessionIds, real.sessionIds, "same sessions");
  same(
    [...real.sessionIds].sort(),
    ids.slice(0, 2).sort(),
    "the oldest two go",
  );
  same(
    (await manager.list({ ownerId: owner })).map((s) => s.id).sort(),
    ids.slice(2).sort(),
    "the newest two stay",
  );
}
