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
    // The first process never finishes an embedding call: it "crashes" before any vector.
    const stuck: Embedder = () => new Promise<number[][]>(() => undefined);
    const first = backend.manager().withEmbeddings(stuck, { model: "fake-v1" });
    const { id } = await first.create("crash");
    const session = first.getSession(id);
    await session.appendMessage(text("u1", "user", "We ship on Friday"));
    await session.appendMessage(text("a1", "assistant", "Noted"));
    await new Promise((resolve) => setTimeout(resolve, 50));
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
    const out = await tools.session_search.execute!({ query: "launch" }, {
      toolCallId: "t",
      messages: [],
    } as never);
    check(
      String(out).includes("We ship on Friday"),
      `session_search finds it by meaning: ${String(out)}`,
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
};

// --- Helpers ---

export function text(
  id: string,
  role: "user" | "assistant",
  body: string,
): SessionMessage {
  return { id, role, parts: [{ type: "text", text: body }] };
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
