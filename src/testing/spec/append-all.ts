import type {
  SeedSessionProvider,
  SessionProvider,
} from "../../session/contracts/provider.js";
import type { SessionMessage } from "../../session/contracts/types.js";
import { Session } from "../../session/facade/session.js";
import {
  appendRaw,
  build,
  chain,
  ids,
  textMessage,
  tree,
} from "../fixtures.js";
import { caught, summarizeError } from "../helpers.js";
import type { Suite } from "../suite.js";

/**
 * `session.appendAll()` (docs/behavior/messages-and-tree.md#appending-many) on every backend, both
 * through the provider's own `writeMessages` and through the one-by-one path a seed-shaped
 * provider (`appendMessage` only) is adapted to.
 */
export function appendAllSpec(rootSuite: Suite): void {
  const suite = rootSuite.withLayer("session");
  const { expect } = suite;
  const paths: Array<
    [
      string,
      (provider: SessionProvider) => SessionProvider | SeedSessionProvider,
    ]
  > = [
    ["provider as it is", (provider) => provider],
    ["seed-shaped provider", seedShaped],
  ];

  for (const [label, wrap] of paths) {
    suite.describe(`appendAll (${label})`, () => {
      const open = (provider: SessionProvider) =>
        Session.create(wrap(provider));

      suite.it(
        "chains the messages under the latest leaf and returns how many were inserted",
        async ({ provider }) => {
          const session = open(provider("a"));
          await session.appendMessage(textMessage("m0"));
          const batch = ["m1", "m2", "m3"].map((id) => textMessage(id, id));
          expect(await session.appendAll(batch)).toBe(3);
          expect(ids(await session.getHistory())).toEqual([
            "m0",
            "m1",
            "m2",
            "m3",
          ]);
          expect(ids(await session.getBranches("m1"))).toEqual(["m2"]);
          expect((await session.getLatestLeaf())?.id).toBe("m3");
          expect((await session.getMessage("m2"))?.parts).toEqual([
            { type: "text", text: "m2" },
          ]);
          // The next plain append continues the chain.
          await session.appendMessage(textMessage("m4"));
          expect(ids(await session.getHistory())).toEqual([
            "m0",
            "m1",
            "m2",
            "m3",
            "m4",
          ]);
        },
      );

      suite.it(
        "puts the first message under parentId: a message, null (a new root), or an unknown id (a root)",
        async ({ provider }) => {
          const session = open(provider("a"));
          await build(session, tree({ r: { a: { b: {} } } }));
          await session.appendAll([textMessage("x1"), textMessage("x2")], "r");
          expect(ids(await session.getHistory())).toEqual(["r", "x1", "x2"]);
          await session.appendAll([textMessage("y1"), textMessage("y2")], null);
          expect(ids(await session.getHistory())).toEqual(["y1", "y2"]);
          const warn = console.warn;
          console.warn = () => {};
          try {
            await session.appendAll([textMessage("z1")], "nowhere");
          } finally {
            console.warn = warn;
          }
          expect(ids(await session.getHistory("z1"))).toEqual(["z1"]);
          expect(ids(await session.getHistory("b"))).toEqual(["r", "a", "b"]);
        },
      );

      suite.it(
        "skips ids already taken, in the session or earlier in the batch, and chains on through them",
        async ({ provider }) => {
          const session = open(provider("a"));
          await build(session, chain(2)); // m1 → m2
          const inserted = await session.appendAll([
            textMessage("m2", "changed"),
            textMessage("n1"),
            textMessage("n1", "again"),
            textMessage("n2"),
          ]);
          expect(inserted).toBe(2);
          expect(ids(await session.getHistory())).toEqual([
            "m1",
            "m2",
            "n1",
            "n2",
          ]);
          expect((await session.getMessage("m2"))?.parts).toEqual(
            textMessage("m2").parts,
          );
          expect((await session.getMessage("n1"))?.parts).toEqual(
            textMessage("n1").parts,
          );
        },
      );

      suite.it(
        "writes a long batch with taken ids, repeated ids and an attachment among plain messages",
        async ({ provider }) => {
          const session = open(provider("a"));
          await build(session, chain(2)); // m1 → m2
          const batch = Array.from({ length: 60 }, (_, index) =>
            textMessage(`b${index}`, `batch ${index}`),
          );
          batch[5] = textMessage("m2", "taken"); // the next one chains under the stored m2
          batch[10] = textMessage("b9", "again"); // the next one chains under b9
          batch[30] = {
            id: "b30",
            role: "user",
            parts: [{ type: "file", mediaType: "image/png", url: PIXEL }],
          };
          expect(await session.appendAll(batch)).toBe(58);
          const kept = batch.slice(6).filter((_, index) => index !== 4);
          expect(ids(await session.getHistory())).toEqual([
            "m1",
            "m2",
            ...kept.map((message) => message.id),
          ]);
          expect(ids(await session.getHistory("b4"))).toEqual([
            "m1",
            "m2",
            "b0",
            "b1",
            "b2",
            "b3",
            "b4",
          ]);
          expect((await session.getMessage("b9"))?.parts).toEqual(
            batch[9]!.parts,
          );
          expect((await session.getMessage("b30"))?.parts).toEqual(
            batch[30].parts,
          );
          expect((await session.getLatestLeaf())?.id).toBe("b59");
        },
      );

      suite.it(
        "checks every message before writing: one malformed message (INVALID_MESSAGE) writes none",
        async ({ provider }) => {
          const session = open(provider("a"));
          await session.appendMessage(textMessage("m0"));
          const error = await caught(() =>
            session.appendAll([
              textMessage("m1"),
              { id: "m2", role: "user" } as SessionMessage,
            ]),
          );
          expect(summarizeError(error)).toEqual({
            kind: "TypeError",
            code: "INVALID_MESSAGE",
            marked: true,
          });
          const notArray = await caught(() =>
            // @ts-expect-error -- one message, not an array: rejected at runtime too
            session.appendAll(textMessage("m1")),
          );
          expect(summarizeError(notArray).code).toBe("INVALID_ARGUMENT");
          expect(ids(await session.getHistory())).toEqual(["m0"]);
          expect(await session.appendAll([])).toBe(0);
        },
      );

      suite.it(
        "makes the appended messages searchable",
        async ({ provider }) => {
          const session = open(provider("a"));
          if (!provider("a").searchMessages) return;
          await session.appendAll([
            textMessage("q", "where is the zeppelin hangar"),
            textMessage("a", "the zeppelin hangar is north", "assistant"),
            textMessage("o", "unrelated"),
          ]);
          const hits = await session.search("zeppelin hangar");
          expect(hits.map((hit) => hit.id).sort()).toEqual(["a", "q"]);
        },
      );

      suite.it(
        "follows the branch chosen with switchBranch()",
        async ({ provider }) => {
          const session = open(provider("a"));
          await build(session, tree({ r: { a: {}, b: {} } }));
          await session.switchBranch("a");
          await session.appendAll([textMessage("c1"), textMessage("c2")]);
          expect(ids(await session.getHistory())).toEqual([
            "r",
            "a",
            "c1",
            "c2",
          ]);
        },
      );

      suite.it("keeps sessions of one store apart", async ({ provider }) => {
        const first = open(provider("a"));
        const second = open(provider("b"));
        await first.appendAll([textMessage("m1"), textMessage("m2")]);
        expect(await second.appendAll([textMessage("m1")])).toBe(1);
        expect(ids(await second.getHistory())).toEqual(["m1"]);
        expect(ids(await first.getHistory())).toEqual(["m1", "m2"]);
      });
    });
  }
}

/** A one-pixel PNG as a data URL: a file part whose bytes are stored as an attachment. */
const PIXEL =
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/**
 * The same provider as the seed API shapes one: `writeMessages` hidden, `appendMessage` (one
 * message through it) in its place, so the Session adapts it (adaptSeedProvider).
 */
function seedShaped(provider: SessionProvider): SeedSessionProvider {
  const appendMessage = (message: SessionMessage, parentId?: string | null) =>
    appendRaw(provider, message, parentId);
  // The target only carries the type: every member is read from `provider`.
  return new Proxy({} as SeedSessionProvider, {
    get(_, property) {
      if (property === "writeMessages") return undefined;
      if (property === "appendMessage") return appendMessage;
      const value: unknown = Reflect.get(provider, property, provider);
      return typeof value === "function"
        ? (value as (...args: unknown[]) => unknown).bind(provider)
        : value;
    },
    has(_, property) {
      if (property === "appendMessage") return true;
      return property !== "writeMessages" && Reflect.has(provider, property);
    },
  });
}
