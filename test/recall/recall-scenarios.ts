// Recall scenarios (docs/search.md) shared by every backend: SQLite with and without
// sqlite-vec, in memory, PostgreSQL (pg and postgres.js) and workerd. They use the fake
// deterministic embedder of arbor-memory/testing, so each knows what must be found. Imports
// Arbor only, so it also runs bundled inside workerd.
import type {
  Embedder,
  EmbeddingStatusEvent,
  SearchHit,
  SessionManager,
  SessionMessage,
} from "../../src/session/index.js";
import { fakeEmbedder } from "../../src/testing/fake-embedder.js";
import { FUSION_SCENARIOS } from "./fusion-scenarios.js";

/** One backend under test. */
export interface RecallBackend {
  /** A new manager over the same store each call (embeddings not configured yet). */
  manager(): SessionManager;
  /** A manager over a new connection to the same database: a process restart. */
  restart?(): SessionManager;
  /** Vector and queue rows of a session, read from the tables, with the model names of the vectors. */
  rows(
    sessionId: string,
  ): Promise<{ vectors: number; queued: number; models: string[] }>;
  /** Vector and queue rows of the whole store (zero when the tables are gone). */
  totals(): Promise<{ vectors: number; queued: number }>;
  /**
   * Names of the embedding tables, triggers and functions in the database, sorted; `null` for
   * the in-memory store, which has none.
   */
  schema(): Promise<string[] | null>;
}

type Scenario = (backend: RecallBackend) => Promise<void>;

export const RECALL_SCENARIOS: Record<string, Scenario> = {
  "a synonym-only match is found by semantic and hybrid, not by text": async (
    backend,
  ) => {
    const manager = backend.manager().withEmbeddings(fakeEmbedder(), {
      model: "fake-v1",
    });
    const { id } = await manager.create("synonyms");
    const session = manager.getSession(id);
    await session.appendMessage(text("u1", "user", "We ship on Friday"));
    await session.appendMessage(
      text("a1", "assistant", "The banner needs new colors"),
    );
    await session.appendMessage(text("u2", "user", "Anything else to plan?"));
    await manager.flushEmbeddings();
    same(ids(await session.search("launch day", { mode: "text" })), [], "text");
    const semantic = await session.search("launch day", { mode: "semantic" });
    same(semantic[0]?.id, "u1", "best semantic hit");
    same(semantic[0]?.matched, { text: false, semantic: true }, "matched");
    check((semantic[0]?.score ?? 0) > 0, "a positive cosine score");
    const hybrid = await session.search("launch day");
    same(hybrid[0]?.id, "u1", "hybrid is the default with embeddings");
    const words = await session.search("banner colors", { mode: "hybrid" });
    same(words[0]?.id, "a1", "a word match leads hybrid");
    same(words[0]?.matched?.text, true, "matched by text");
    check(
      words[0]?.snippet?.includes("«banner»") === true,
      `snippet marks the term: ${words[0]?.snippet}`,
    );
    same(words[0]?.onActiveBranch, true, "on the active branch");
    same(words[0]?.kind, "message", "kind");
  },

  "scope branch excludes an abandoned sibling that scope session returns":
    async (backend) => {
      const manager = backend.manager().withEmbeddings(fakeEmbedder());
      const { id } = await manager.create("branches");
      const session = manager.getSession(id);
      await session.appendMessage(text("u1", "user", "Planning the move"));
      await session.appendMessage(
        text("old", "assistant", "We take the car on Monday"),
      );
      await session.appendMessage(
        text("new", "assistant", "The truck leaves on Friday"),
        "u1",
      );
      await manager.flushEmbeddings();
      const all = await session.search("vehicle", { mode: "semantic" });
      same(ids(all).sort(), ["new", "old"], "scope session sees both");
      same(
        all.find((hit) => hit.id === "old")?.onActiveBranch,
        false,
        "the abandoned sibling is off the active branch",
      );
      const branch = await session.search("vehicle", {
        mode: "semantic",
        scope: "branch",
      });
      same(ids(branch), ["new"], "scope branch sees the active path only");
      same(
        ids(await session.search("car", { mode: "text", scope: "branch" })),
        [],
        "the text match on the abandoned branch is out",
      );
      const hybrid = await session.search("car", { scope: "branch" });
      same(
        hybrid.map((hit) => [hit.id, hit.matched]),
        [["new", { text: false, semantic: true }]],
        "hybrid on the branch: only the active sibling, by meaning",
      );
      same(
        ids(await session.search("car", { mode: "text", scope: "session" })),
        ["old"],
        "scope session finds it by text",
      );
      const other = await session.search("vehicle", {
        mode: "semantic",
        scope: "branch",
        leafId: "old",
      });
      same(ids(other), ["old"], "scope branch with leafId follows that path");
    },

  "scope branch finds its match behind 450 better ones off the branch": async (
    backend,
  ) => {
    const manager = backend.manager().withEmbeddings(fakeEmbedder());
    const { id } = await manager.create("crowded");
    const session = manager.getSession(id);
    await session.appendMessage(text("root", "user", "Status?"));
    await session.appendMessage(
      text(
        "kept",
        "assistant",
        "Launch of the zeppelin, alpha bravo charlie delta echo",
      ),
    );
    // An abandoned branch of 450 messages nearer to the query than "kept".
    await session.appendAll(
      Array.from({ length: 450 }, (_, n) =>
        text(`off${n}`, "assistant", `We ship crate ${n}`),
      ),
      "root",
    );
    await session.switchBranch("kept");
    await manager.flushEmbeddings();
    const session450 = await session.search("ship", {
      mode: "semantic",
      limit: 5,
    });
    check(
      session450.every((hit) => hit.id.startsWith("off")),
      "off-branch hits lead the session",
    );
    same(
      ids(await session.search("ship", { mode: "semantic", scope: "branch" })),
      ["kept"],
      "the branch's own match, found past the 400 nearest",
    );
  },

  "vectors of texts without words do not crowd out real matches": async (
    backend,
  ) => {
    // Punctuation-only texts embed to zero vectors: their cosine is undefined (pgvector's `<=>`
    // says NaN, which PostgreSQL sorts above every number), so they must rank last, not first.
    const manager = backend.manager().withEmbeddings(fakeEmbedder());
    const { id } = await manager.create("empty vectors");
    const session = manager.getSession(id);
    await session.appendMessage(text("u1", "user", "We ship on Friday"));
    await session.appendAll(
      Array.from({ length: 250 }, (_, n) => text(`p${n}`, "assistant", "?!")),
    );
    await manager.flushEmbeddings();
    same((await backend.rows(id)).vectors, 251, "every text has a vector");
    const hits = await session.search("launch", { mode: "semantic" });
    same(ids(hits), ["u1"], "the one real match");
    check((hits[0]?.score ?? 0) > 0, "a positive cosine score");
  },

  "the queue survives a crash between append and embedding": async (
    backend,
  ) => {
    // The first process never finishes an embedding call: it "crashes" before any vector,
    // holding a lease on the batch it claimed (short here; 60 s by default).
    const stuck: Embedder = () => new Promise<number[][]>(() => undefined);
    const first = backend
      .manager()
      .withEmbeddings(stuck, { model: "fake-v1", leaseMs: 300 });
    const { id } = await first.create("crash");
    const session = first.getSession(id);
    await session.appendMessage(text("u1", "user", "We ship on Friday"));
    await session.appendMessage(text("a1", "assistant", "Noted"));
    // The worker opens the tables (and backfills) in the background: give it time to.
    for (let waited = 0; waited < 5_000; waited += 20) {
      if ((await backend.rows(id)).queued === 2) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    same(
      await backend.rows(id),
      { vectors: 0, queued: 2, models: [] },
      "rows queued with the append",
    );
    const second = (backend.restart ?? backend.manager)().withEmbeddings(
      fakeEmbedder(),
      { model: "fake-v1" },
    );
    await second.flushEmbeddings();
    same(
      await backend.rows(id),
      { vectors: 2, queued: 0, models: ["fake-v1"] },
      "embedded after the restart",
    );
    const hits = await second
      .getSession(id)
      .search("launch", { mode: "semantic" });
    same(hits[0]?.id, "u1", "found after the restart");
  },

  "a model change is detected and re-embedded": async (backend) => {
    const v1 = backend.manager().withEmbeddings(fakeEmbedder(), {
      model: "fake-v1",
    });
    const { id } = await v1.create("models");
    await v1
      .getSession(id)
      .appendMessage(text("u1", "user", "We ship on Friday"));
    await v1.flushEmbeddings();
    same((await backend.rows(id)).models, ["fake-v1"], "stored under v1");
    const v2 = backend.manager().withEmbeddings(fakeEmbedder(), {
      model: "fake-v2",
    });
    const session = v2.getSession(id);
    same(
      await session.search("launch", { mode: "semantic" }),
      [],
      "v1 vectors are not used for v2 queries",
    );
    same((await backend.rows(id)).queued, 1, "the v1 vector is queued again");
    await v2.flushEmbeddings();
    same(
      await backend.rows(id),
      { vectors: 1, queued: 0, models: ["fake-v2"] },
      "re-embedded",
    );
    same(
      ids(await session.search("launch", { mode: "semantic" })),
      ["u1"],
      "found with v2",
    );
  },

  "deleted, updated and erased messages keep no vector": async (backend) => {
    // The background worker embeds soon after each write: texts with "automobile" wait for
    // `release`, so the re-queued state is read before the new vector lands.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const embed = fakeEmbedder();
    const manager = backend.manager().withEmbeddings(async (texts) => {
      if (texts.some((t) => t.includes("automobile"))) await held;
      return embed(texts);
    });
    const { id } = await manager.create("stale");
    const session = manager.getSession(id);
    await session.appendMessage(text("u1", "user", "We ship on Friday"));
    await session.appendMessage(text("a1", "assistant", "The cat sleeps"));
    await session.appendMessage(text("u2", "user", "A truck is outside"));
    await manager.flushEmbeddings();
    same((await backend.rows(id)).vectors, 3, "three vectors");
    await session.deleteMessages(["u1"]);
    same(
      (await backend.rows(id)).vectors,
      2,
      "the deleted message's vector is gone at once",
    );
    await session.updateMessage(
      text("a1", "assistant", "The automobile is red"),
    );
    const afterUpdate = await backend.rows(id);
    same(
      [afterUpdate.vectors, afterUpdate.queued],
      [1, 1],
      "the updated message's vector is gone, re-queued",
    );
    same(
      ids(await session.search("kitten", { mode: "semantic" })),
      [],
      "no stale meaning",
    );
    release();
    await manager.flushEmbeddings();
    same(
      ids(await session.search("car", { mode: "semantic" })).sort(),
      ["a1", "u2"],
      "the new text is embedded",
    );
    await manager.erase({ sessionId: id, messageIds: ["a1"] });
    same(
      (await backend.rows(id)).vectors,
      1,
      "erase removes the message's vector",
    );
    await manager.erase({ sessionId: id });
    same(
      await backend.rows(id),
      { vectors: 0, queued: 0, models: [] },
      "erase of the session removes all",
    );
  },

  "overlays are found by their summary and covered messages stay findable":
    async (backend) => {
      const manager = backend.manager().withEmbeddings(fakeEmbedder());
      const { id } = await manager.create("overlays");
      const session = manager.getSession(id);
      await session.appendMessage(text("u1", "user", "We ship on Friday"));
      await session.appendMessage(text("a1", "assistant", "Fine by me"));
      await session.appendMessage(text("u2", "user", "Next topic"));
      const overlay = await session.addCompaction(
        "The team adopted a kitten",
        "u1",
        "a1",
      );
      await manager.flushEmbeddings();
      const byText = await session.search("kitten", { mode: "text" });
      same(
        byText.map((hit) => [hit.id, hit.kind]),
        [[overlay.id, "summary"]],
        "summary by text",
      );
      const byMeaning = await session.search("cat", { mode: "semantic" });
      same(byMeaning[0]?.id, overlay.id, "summary by meaning");
      same(byMeaning[0]?.role, "summary", "role");
      same(
        byMeaning[0]?.onActiveBranch,
        true,
        "the overlay is on the active branch",
      );
      same(
        ids(await session.search("ship", { mode: "text" })),
        ["u1"],
        "covered message findable",
      );
    },

  "status events report progress and failures are retried": async (backend) => {
    let calls = 0;
    const flaky = fakeEmbedder({
      onCall: () => {
        if (++calls <= 2) throw new Error("embedder unavailable");
      },
    });
    const manager = backend.manager().withEmbeddings(flaky, { batchSize: 2 });
    const { id } = await manager.create("status");
    const session = manager.getSession(id);
    const events: EmbeddingStatusEvent[] = [];
    session.onStatus((event) => {
      if (event.type === "cf_agent_session_embeddings") events.push(event);
    });
    for (const n of [1, 2, 3])
      await session.appendMessage(text(`u${n}`, "user", `We ship crate ${n}`));
    await session.flushEmbeddings();
    same((await backend.rows(id)).vectors, 3, "all embedded after retries");
    check(
      events.some(
        (e) =>
          e.phase === "failed" && e.error?.includes("unavailable") === true,
      ),
      "a failed event",
    );
    const batches = events.filter((e) => e.phase === "embedded");
    check(
      batches.length > 0 && batches.every((e) => e.embedded <= 2),
      `batches of at most batchSize: ${JSON.stringify(batches)}`,
    );
    // Events carry a pending count read after the batch: give the last one time to arrive.
    for (let waited = 0; waited < 2000; waited += 20) {
      if (events.some((e) => e.phase === "idle" && e.pending === 0)) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    check(
      events.some((e) => e.phase === "idle" && e.pending === 0),
      "an idle event",
    );
  },

  "manager search and session_search use the same modes": async (backend) => {
    const manager = backend.manager().withEmbeddings(fakeEmbedder());
    const a = await manager.create("a");
    const b = await manager.create("b");
    await manager
      .getSession(a.id)
      .appendMessage(text("m1", "user", "We ship on Friday"));
    await manager
      .getSession(b.id)
      .appendMessage(text("m2", "user", "The cat sleeps"));
    await manager.flushEmbeddings();
    const hits = await manager.search("launch", { sessionIds: [a.id, b.id] });
    same(
      hits.map((hit) => [hit.sessionId, hit.id]),
      [[a.id, "m1"]],
      "hybrid across sessions",
    );
    same(
      (
        await manager.search("launch", {
          mode: "text",
          sessionIds: [a.id, b.id],
        })
      ).length,
      0,
      "text misses it",
    );
    const tools = await manager.tools();
    const out = await tools.session_search.execute({ query: "launch" }, {
      toolCallId: "t",
      messages: [],
    } as never);
    check(
      String(out).includes("We ship on Friday"),
      `session_search finds it by meaning: ${String(out)}`,
    );
  },

  "manager text search finds overlays by their summary, folded, in scope":
    async (backend) => {
      const manager = backend.manager();
      const a = await manager.create("a", { ownerId: "ann" });
      const b = await manager.create("b", { ownerId: "bob" });
      const sa = manager.getSession(a.id);
      await sa.appendMessage(text("u1", "user", "We ship on Friday"));
      await sa.appendMessage(text("a1", "assistant", "Fine by me"));
      const wide = await sa.addCompaction(
        "The team adopted a ＫＩＴＴＥＮ — a grey one",
        "u1",
        "a1",
      );
      const sb = manager.getSession(b.id);
      await sb.appendMessage(text("u2", "user", "A kitten photo"));
      await sb.appendMessage(text("a2", "assistant", "Cute"));
      const plain = await sb.addCompaction(
        "Bob shared a kitten picture, 50% off",
        "u2",
        "a2",
      );
      const scope = { sessionIds: [a.id, b.id] };
      const hits = await manager.search("Kitten", { mode: "text", ...scope });
      same(
        hits.map((hit) => [hit.sessionId, hit.id, hit.kind]).sort(),
        [
          [a.id, wide.id, "summary"],
          [b.id, "u2", "message"],
          [b.id, plain.id, "summary"],
        ].sort(),
        "summaries of both sessions (one full-width) and the message",
      );
      const summary = hits.find((hit) => hit.id === plain.id);
      same(summary?.role, "summary", "role");
      same(summary?.onActiveBranch, true, "on the active branch");
      check(
        summary?.snippet?.includes("«kitten»") === true,
        `snippet marks the term: ${summary?.snippet}`,
      );
      same(
        (await manager.search("kitten", { mode: "text", ownerId: "ann" })).map(
          (hit) => hit.id,
        ),
        [wide.id],
        "ownerId keeps one tenant's summaries",
      );
      same(
        (
          await manager.search("kitten grey", {
            mode: "text",
            match: "all",
            ...scope,
          })
        ).map((hit) => hit.id),
        [wide.id],
        "match: all: every term must match",
      );
      const anyTerm = (
        await manager.search("kitten grey", { mode: "text", ...scope })
      ).map((hit) => hit.id);
      same(
        anyTerm.filter((id) => id !== "u2"),
        [wide.id, plain.id],
        "any term: both summaries, the one holding both terms first",
      );
      same(
        (await manager.search("0%", { mode: "text", ...scope })).map(
          (hit) => hit.id,
        ),
        [plain.id],
        "LIKE wildcards in a term are literal",
      );
      same(
        (await manager.search("_", { mode: "text", ...scope })).length,
        0,
        "a term without letters or digits matches nothing",
      );
      await sa.appendMessage(text("u3", "user", "Und dann?"));
      const german = await sa.addCompaction("Das KÄTZCHEN schläft", "u3", "u3");
      same(
        (await manager.search("kätzchen", { mode: "text", ...scope })).map(
          (hit) => hit.id,
        ),
        [german.id],
        "a non-ASCII term folds case like a session search",
      );
    },

  "onActiveBranch follows appends and branch switches between searches": async (
    backend,
  ) => {
    const manager = backend.manager();
    const { id } = await manager.create("moving");
    const session = manager.getSession(id);
    await session.appendMessage(text("u1", "user", "plan the trip"));
    await session.appendMessage(text("a1", "assistant", "trip by train"));
    const onBranch = async () =>
      Object.fromEntries(
        (await session.search("trip", { mode: "text" }))
          .map((hit) => [hit.id, hit.onActiveBranch] as const)
          .sort(([a], [b]) => (a < b ? -1 : 1)),
      );
    same(await onBranch(), { a1: true, u1: true }, "first search");
    await session.appendMessage(text("a2", "assistant", "trip by car"), "u1");
    same(
      await onBranch(),
      { a1: false, a2: true, u1: true },
      "a new sibling becomes the active leaf",
    );
    await session.appendMessage(text("u3", "user", "trip booked"));
    same(
      await onBranch(),
      { a1: false, a2: true, u1: true, u3: true },
      "an append onto the active leaf",
    );
    await session.switchBranch("a1");
    same(
      await onBranch(),
      { a1: true, a2: false, u1: true, u3: false },
      "after switching branch",
    );
    await session.deleteMessages(["a1"]);
    same(
      await onBranch(),
      { a2: true, u1: true, u3: true },
      "after deleting the active leaf",
    );
    const fresh = backend.restart?.() ?? manager;
    await fresh.getSession(id).appendMessage(text("u4", "user", "trip done"));
    same(
      await onBranch(),
      { a2: true, u1: true, u3: true, u4: true },
      "an append through another connection",
    );
  },

  "plain text search keeps its results without embeddings": async (backend) => {
    const manager = backend.manager();
    const { id } = await manager.create("plain");
    const session = manager.getSession(id);
    await session.appendMessage(text("u1", "user", "zebra crossing"));
    const [hit] = await session.search("zebra");
    same(
      Object.keys(hit ?? {})
        .filter((key) => !["createdAt"].includes(key))
        .sort(),
      ["content", "id", "role"],
      "old shape",
    );
    const [explained] = await session.search("zebra", { mode: "text" });
    same(
      explained?.matched,
      { text: true, semantic: false },
      "explained on request",
    );
    let error: unknown;
    await session
      .search("zebra", { mode: "semantic" })
      .catch((e: unknown) => (error = e));
    same(
      (error as { code?: string } | undefined)?.code,
      "NOT_SUPPORTED",
      "semantic needs embeddings",
    );
  },

  "two managers over one store embed every message once": async (backend) => {
    // Written without embeddings, so both workers start on the same queue (their backfill).
    const plain = backend.manager();
    const { id } = await plain.create("two workers");
    const bodies = Array.from({ length: 40 }, (_, n) => `Crate ${n} is red`);
    await plain
      .getSession(id)
      .appendAll(bodies.map((body, n) => text(`c${n}`, "user", body)));
    const counted = countingEmbedder();
    const options = { batchSize: 3 };
    const first = backend.manager().withEmbeddings(counted.embed, options);
    const second = (backend.restart ?? backend.manager)().withEmbeddings(
      counted.embed,
      options,
    );
    await Promise.all([first.flushEmbeddings(), second.flushEmbeddings()]);
    same(
      bodies.filter((body) => counted.calls.get(body) !== 1),
      [],
      "every message embedded exactly once",
    );
    same(
      await backend.rows(id),
      { vectors: 40, queued: 0, models: ["custom"] },
      "all stored",
    );
  },

  "a crashed worker's batch is embedded once its lease ends": async (
    backend,
  ) => {
    // The first worker claims the batch and never completes it: a process that died.
    let claimed!: () => void;
    const claim = new Promise<void>((resolve) => (claimed = resolve));
    const crashed: Embedder = () => {
      claimed();
      return new Promise<number[][]>(() => undefined);
    };
    const first = backend.manager().withEmbeddings(crashed, { leaseMs: 600 });
    const { id } = await first.create("lease");
    const bodies = ["We ship on Friday", "The cat sleeps", "A truck waits"];
    await first
      .getSession(id)
      .appendAll(bodies.map((body, n) => text(`l${n}`, "user", body)));
    await claim;
    const started = Date.now();
    const counted = countingEmbedder();
    const second = (backend.restart ?? backend.manager)().withEmbeddings(
      counted.embed,
    );
    await second.flushEmbeddings();
    const waited = Date.now() - started;
    check(waited >= 400, `the lease was waited out (${waited} ms)`);
    check(waited < 10_000, `and not much longer (${waited} ms)`);
    same(
      bodies.map((body) => counted.calls.get(body) ?? 0),
      [1, 1, 1],
      "each message embedded once, by the second worker",
    );
    same((await backend.rows(id)).vectors, 3, "all stored");
  },

  "erase returns while the embedder hangs, and the late vector never lands":
    async (backend) => {
      let called!: () => void;
      const inFlight = new Promise<void>((resolve) => (called = resolve));
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const embed = fakeEmbedder();
      // A fake embedder that hangs until released (after the erase has returned).
      const hanging: Embedder = async (texts) => {
        called();
        await gate;
        return embed(texts);
      };
      let hang = false;
      const manager = backend
        .manager()
        .withEmbeddings((texts) => (hang ? hanging(texts) : embed(texts)));
      const { id } = await manager.create("hung embedder");
      const session = manager.getSession(id);
      // Embeddings are running, so the next write is queued by its own write (a trigger).
      await session.appendMessage(text("h0", "user", "Hello"));
      await manager.flushEmbeddings();
      hang = true;
      await session.appendMessage(text("h1", "user", "We ship on Friday"));
      await inFlight;
      const outcome = await Promise.race([
        manager.erase({ sessionId: id, messageIds: ["h1"] }),
        new Promise<"timeout">((resolve) =>
          setTimeout(() => resolve("timeout"), 5_000),
        ),
      ]);
      check(outcome !== "timeout", "erase did not wait for the embedder");
      same(
        outcome === "timeout" ? null : outcome.messages,
        1,
        "the message is erased",
      );
      // The same id written again with another text, before the old call answers.
      await session.appendMessage(text("h1", "user", "The cat sleeps"));
      release();
      await manager.flushEmbeddings();
      same(
        ids(await session.search("launch", { mode: "semantic" })),
        [],
        "the erased text's vector did not land",
      );
      same(
        ids(await session.search("kitten", { mode: "semantic" })),
        ["h1"],
        "the new text is embedded",
      );
      same(
        await backend.rows(id),
        { vectors: 2, queued: 0, models: ["custom"] },
        "h0's and the new h1's vectors",
      );
    },

  "removeEmbeddings drops the queue, vectors and triggers; withEmbeddings again backfills":
    async (backend) => {
      let hold = false;
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let held!: () => void;
      const holding = new Promise<void>((resolve) => (held = resolve));
      const embed = fakeEmbedder();
      const manager = backend.manager().withEmbeddings(async (texts) => {
        if (hold) {
          held();
          await gate;
        }
        return embed(texts);
      });
      const { id } = await manager.create("removal");
      const session = manager.getSession(id);
      for (const [n, body] of [
        "We ship on Friday",
        "The cat sleeps",
        "A truck waits",
      ].entries())
        await session.appendMessage(text(`m${n}`, "user", body));
      await manager.flushEmbeddings();
      // A fourth message whose embedding is in flight when embeddings are removed.
      hold = true;
      await session.appendMessage(text("m3", "user", "The kitten plays"));
      await holding;
      same(
        [(await backend.rows(id)).vectors, (await backend.rows(id)).queued],
        [3, 1],
        "three vectors and one queued item before",
      );
      const schema = await backend.schema();
      if (schema !== null)
        check(
          schema.includes("arbor_embedding_queue") &&
            schema.includes("arbor_embeddings") &&
            schema.some((name) => name.startsWith("arbor_embed_")),
          `tables and triggers before: ${schema.join(", ")}`,
        );
      const before = await backend.totals();
      const removed = await manager.removeEmbeddings();
      same(removed, before, "the receipt counts every vector and queued item");
      same(await backend.totals(), { vectors: 0, queued: 0 }, "none left");
      await noSchema(backend, "tables, triggers and functions dropped");
      await session.appendMessage(text("m4", "user", "Launch the rocket"));
      await manager
        .getSession(id)
        .updateMessage(text("m0", "user", "We ship on Monday"));
      same(
        await backend.totals(),
        { vectors: 0, queued: 0 },
        "writes queue nothing",
      );
      await noSchema(backend, "nothing recreated by writes");
      await manager.flushEmbeddings();
      same(
        Object.keys((await session.search("kitten"))[0] ?? {}).includes(
          "score",
        ),
        false,
        "search is plain text again",
      );
      const semantic = await session
        .search("kitten", { mode: "semantic" })
        .catch((error: { code?: string }) => error.code);
      same(semantic, "NOT_SUPPORTED", "semantic search needs embeddings again");
      // The worker stopped by the removal stores nothing when its embedder answers.
      release();
      await new Promise((resolve) => setTimeout(resolve, 50));
      same(
        await backend.totals(),
        { vectors: 0, queued: 0 },
        "the late vector is dropped",
      );

      manager.withEmbeddings(fakeEmbedder());
      await manager.flushEmbeddings();
      same(
        await backend.rows(id),
        { vectors: 5, queued: 0, models: ["custom"] },
        "every message embedded again",
      );
      same(
        ids(await session.search("launch", { mode: "semantic" })).sort(),
        ["m0", "m4"],
        "found by meaning again",
      );
      await session.appendMessage(text("m5", "user", "A car is outside"));
      await manager.flushEmbeddings();
      same((await backend.rows(id)).vectors, 6, "writes are queued again");
    },

  ...FUSION_SCENARIOS,
};

// --- Helpers ---

export function text(
  id: string,
  role: "user" | "assistant",
  body: string,
): SessionMessage {
  return { id, role, parts: [{ type: "text", text: body }] };
}

async function noSchema(backend: RecallBackend, what: string): Promise<void> {
  const schema = await backend.schema();
  if (schema !== null) same(schema, [], what);
}

/** The fake embedder, counting how often each text was embedded. */
function countingEmbedder(): { embed: Embedder; calls: Map<string, number> } {
  const fake = fakeEmbedder();
  const calls = new Map<string, number>();
  const embed: Embedder = async (texts) => {
    for (const t of texts) calls.set(t, (calls.get(t) ?? 0) + 1);
    // A pause per batch, so two workers' claims interleave.
    await new Promise((resolve) => setTimeout(resolve, 5));
    return fake(texts);
  };
  return { embed, calls };
}

function ids(hits: SearchHit[]): string[] {
  return hits.map((hit) => hit.id);
}

export function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`expected: ${what}`);
}

export function same(actual: unknown, expected: unknown, what: string): void {
  const [a, b] = [JSON.stringify(actual), JSON.stringify(expected)];
  if (a !== b) throw new Error(`${what}: got ${a}, expected ${b}`);
}
