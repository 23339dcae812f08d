// A store outside Arbor's own folders earns erase, prune and embeddings by implementing the
// `Backend` contract: the manager never asks which backend it has. The custom backend here keeps
// its rows in a MemoryStore but is handed to the manager as a plain object of its own, with its
// own name and identity object, so nothing can tell it apart from a third-party store.
import { describe, expect, it } from "vitest";
import {
  isBackend,
  SessionManager,
  type Backend,
} from "../../src/session/index.js";
import { memoryBackend } from "../../src/backends/memory/memory-backend.js";
import { MemoryStore } from "../../src/backends/memory/memory-store.js";
import { InMemoryAuditSink } from "../../src/session/index.js";
import {
  deepText,
  fakeEmbedder,
  runEraseConformance,
} from "../../src/testing/index.js";

/** A backend built by hand from its parts; `erase`/`embeddings` only when asked for. */
function customBackend(
  parts: {
    erase?: boolean;
    embeddings?: boolean;
  },
  store = new MemoryStore(),
): Backend {
  const rows = memoryBackend(store);
  return {
    name: "custom",
    identity: rows.identity,
    registry: rows.registry,
    session: (sessionId) => rows.session(sessionId),
    ...(parts.erase && rows.erase ? { erase: rows.erase } : {}),
    ...(parts.embeddings && rows.embeddings
      ? { embeddings: rows.embeddings }
      : {}),
  };
}

const text = (id: string, words: string) => ({
  id,
  role: "user" as const,
  parts: [{ type: "text" as const, text: words }],
});

describe("a custom Backend", () => {
  it("is recognized by isBackend, and a sql store or a pg-like client is not", () => {
    expect(isBackend(customBackend({}))).toBe(true);
    expect(isBackend({ sql: () => [] })).toBe(false);
    expect(isBackend({ query: async () => ({ rows: [] }) })).toBe(false);
  });

  it("earns erase and prune by implementing erase", async () => {
    const manager = SessionManager.create(customBackend({ erase: true }));
    const { id } = await manager.create("notes");
    await manager.append(id, text("m1", "the launch budget is 40k"));
    await manager.append(id, text("m2", "and the venue is booked"));
    const receipt = await manager.erase({ sessionId: id, messageIds: ["m1"] });
    expect(receipt.messages).toBe(1);
    const history = await manager.getSession(id).getHistory();
    expect(history.map((message) => message.id)).toEqual(["m2"]);
    const pruned = await manager.prune({
      olderThan: new Date(Date.now() + 1000),
    });
    expect(pruned.sessions).toBe(1);
  });

  it("without erase, erase and prune say NOT_SUPPORTED and name the backend", async () => {
    const manager = SessionManager.create(customBackend({}));
    const { id } = await manager.create("notes");
    await expect(manager.erase({ sessionId: id })).rejects.toMatchObject({
      code: "NOT_SUPPORTED",
      message: expect.stringContaining("custom"),
    });
    await expect(
      manager.prune({ olderThan: new Date() }),
    ).rejects.toMatchObject({ code: "NOT_SUPPORTED" });
  });

  it("earns semantic recall by implementing embeddings (fake embedder)", async () => {
    const manager = SessionManager.create(
      customBackend({ embeddings: true, erase: true }),
    ).withEmbeddings(fakeEmbedder());
    const { id } = await manager.create("notes");
    await manager.append(id, text("m1", "the launch budget is 40k"));
    await manager.flushEmbeddings();
    const hits = await manager.search("launch budget", { mode: "semantic" });
    expect(hits.map((hit) => hit.id)).toContain("m1");
    const receipt = await manager.erase({ sessionId: id });
    expect(receipt.vectors).toBeGreaterThan(0);
    expect(await manager.removeEmbeddings()).toEqual({ vectors: 0, queued: 0 });
  });

  it("without embeddings, withEmbeddings fails on first use with NOT_SUPPORTED", async () => {
    const manager = SessionManager.create(customBackend({})).withEmbeddings(
      fakeEmbedder(),
    );
    await expect(manager.flushEmbeddings()).rejects.toMatchObject({
      code: "NOT_SUPPORTED",
    });
  });

  it("whose insert does not check the registry: appendToExisting reads the registry first", async () => {
    const rows = memoryBackend(new MemoryStore());
    const lookups: string[] = [];
    const registry = Object.assign(Object.create(rows.registry), {
      get: (id: string) => {
        lookups.push(id);
        return rows.registry.get(id);
      },
    });
    // A provider that does not declare `insertChecksRegistry`, as a third-party one would not.
    const plain = (sessionId: string) =>
      new Proxy(rows.session(sessionId), {
        get(target, key) {
          if (key === "insertChecksRegistry") return undefined;
          const value = Reflect.get(target, key, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
    const manager = SessionManager.create({
      name: "custom",
      identity: rows.identity,
      registry,
      session: plain,
    });
    await expect(
      manager.appendToExisting("ghost", text("m1", "hello?")),
    ).rejects.toMatchObject({ code: "SESSION_NOT_FOUND" });
    expect(lookups).toEqual(["ghost"]);
    expect(await rows.registry.get("ghost")).toBeNull();
    expect(await manager.getHistory("ghost")).toEqual([]);
    const { id } = await manager.create("notes");
    const result = await manager.appendToExisting(id, text("m1", "hello"));
    expect(result.inserted).toBe(true);
    expect(lookups.filter((looked) => looked === id)).toHaveLength(1);
    expect((await manager.getHistory(id)).map((m) => m.id)).toEqual(["m1"]);
  });
});

// The whole erase suite of arbor-memory/testing, as a third-party store would run it: every
// trace of an erased session gone from the store's rows, races included.
runEraseConformance(
  {
    name: "a custom Backend with erase and embeddings",
    create: () => {
      const store = new MemoryStore();
      const sink = new InMemoryAuditSink();
      const backend = customBackend({ erase: true, embeddings: true }, store);
      return {
        manager: () =>
          SessionManager.create(backend).withContext("memory").withAudit(sink),
        auditCount: (id) => sink.forSession(id).length,
        dump: () => deepText([store, sink.events]),
        dumpWithoutAudit: () => deepText(store),
        expects: { separateIndex: false, changeLog: false },
      };
    },
  },
  { describe, it, expect },
);
