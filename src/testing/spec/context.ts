import { Session } from "../../session/facade/session.js";
import {
  readonlyProvider,
  searchProvider,
  skillProvider,
  writableProvider,
} from "../context-fixtures.js";
import { caught, caughtSync, messageOf, summarizeError } from "../helpers.js";
import type { Suite } from "../suite.js";
import { SEP, text } from "./context-support.js";

/**
 * Context blocks, the frozen system prompt, the AI tools, skills and block history, on sessions
 * whose blocks are auto-wired by the store (docs/behavior/session-setup.md, docs/behavior/context-blocks.md). Needs a provider with
 * `createContextProvider()`.
 */
export function contextSpec(rootSuite: Suite): void {
  const suite = rootSuite.withLayer("session");
  const { expect } = suite;
  const requires = { contextBlocks: true } as const;

  suite.describe("context blocks", () => {
    suite.it(
      "auto-wires a writable block whose writes survive a new Session object",
      async ({ provider }) => {
        const first = Session.create(provider("a")).withContext("memory");
        await first.replaceContextBlock("memory", "likes tea");
        const again = Session.create(provider("a")).withContext("memory");
        const blocks = await again.loadContext();
        expect(
          blocks.map((block) => [block.label, block.content, block.writable]),
        ).toEqual([["memory", "likes tea", true]]);
        const other = Session.create(provider("b")).withContext("memory");
        expect((await other.loadContext())[0]?.content).toBe("");
      },
      { requires },
    );

    suite.it(
      "rejects duplicate and reserved labels, and builder calls after initialization",
      async ({ provider }) => {
        const session = Session.create(provider("a")).withContext("memory");
        const duplicate = caughtSync(() => session.withContext("memory"));
        expect(summarizeError(duplicate)).toEqual({
          kind: "Error",
          code: "BLOCK_EXISTS",
          marked: true,
        });
        expect(messageOf(duplicate)).toBe('Block "memory" already exists');
        const reserved = caughtSync(() =>
          session.withContext("_system_prompt_x"),
        );
        expect(summarizeError(reserved).code).toBe("BLOCK_LABEL_RESERVED");
        await session.getHistory();
        for (const call of [
          () => session.withContext("later"),
          () => session.withCachedPrompt(),
          () => session.forSession("x"),
        ]) {
          const error = caughtSync(call);
          expect(summarizeError(error)).toEqual({
            kind: "Error",
            code: "SESSION_ALREADY_INITIALIZED",
            marked: true,
          });
          expect(messageOf(error)).toBe(
            "Session is already initialized; use addContext() for runtime blocks",
          );
        }
      },
      { requires },
    );

    suite.it(
      "returns no blocks before loading, then copies that callers cannot corrupt",
      async ({ provider }) => {
        const session = Session.create(provider("a")).withContext("memory");
        expect(session.getContextBlock("memory")).toBeNull();
        expect(session.getContextBlocks()).toEqual([]);
        await session.loadContext();
        const copy = session.getContextBlock("memory")!;
        copy.content = "tampered";
        expect(session.getContextBlock("memory")!.content).toBe("");
      },
      { requires },
    );

    suite.it(
      "renders the system prompt exactly (separators, header, usage, one tag)",
      async ({ provider }) => {
        const memory = writableProvider("x ".repeat(200).trim());
        const session = Session.create(provider("a"))
          .withContext("soul", { provider: readonlyProvider("You are Arbor.") })
          .withContext("empty", { provider: readonlyProvider(null) })
          .withContext("memory", {
            description: "Learned facts",
            maxTokens: 1100,
            provider: memory,
          })
          .withContext("notes")
          .withContext("skills", {
            provider: skillProvider({
              "api-ref": { content: "API", description: "The API" },
            }),
          })
          .withContext("kb", { provider: searchProvider({ a: "alpha" }) });
        const prompt = await session.freezeSystemPrompt();
        const memoryTokens = Math.ceil(Math.max(399 / 4, 200 * 1.3));
        expect(prompt).toBe(
          [
            `${SEP}\nSOUL [readonly]\n${SEP}\nYou are Arbor.`,
            `${SEP}\nMEMORY (Learned facts) [${Math.round((memoryTokens / 1100) * 100)}% — ${memoryTokens}/1100 tokens] [writable]\n${SEP}\n${"x ".repeat(200).trim()}`,
            `${SEP}\nNOTES [writable]\n${SEP}\n`,
            `${SEP}\nSKILLS [loadable]\n${SEP}\n- api-ref: The API`,
            `${SEP}\nKB [searchable]\n${SEP}\n1 entries indexed.`,
          ].join("\n\n"),
        );
      },
      { requires },
    );

    suite.it(
      "enforces the write rules with the exact errors of docs/behavior/context-blocks.md",
      async ({ provider }) => {
        const session = Session.create(provider("a"))
          .withContext("soul", { provider: readonlyProvider("fixed") })
          .withContext("memory", { maxTokens: 3 })
          .withContext("skills", { provider: skillProvider() });
        const cases: Array<[string, () => Promise<unknown>, string, string]> = [
          [
            "unknown",
            () => session.replaceContextBlock("nope", "x"),
            "BLOCK_NOT_FOUND",
            'Block "nope" not found',
          ],
          [
            "readonly",
            () => session.replaceContextBlock("soul", "x"),
            "BLOCK_READONLY",
            'Block "soul" is readonly',
          ],
          [
            "append readonly",
            () => session.appendContextBlock("soul", "x"),
            "BLOCK_READONLY",
            'Block "soul" is readonly',
          ],
          [
            "keyed",
            () => session.replaceContextBlock("skills", "x"),
            "BLOCK_KEYED",
            'Block "skills" is a keyed provider. Use set_context with metadata instead.',
          ],
          [
            "maxTokens",
            () => session.replaceContextBlock("memory", "one two three four"),
            "BLOCK_TOO_LARGE",
            'Block "memory" exceeds maxTokens: 6 > 3',
          ],
        ];
        for (const [label, call, code, message] of cases) {
          const error = await caught(call);
          expect({
            label,
            code: summarizeError(error).code,
            message: messageOf(error),
          }).toEqual({
            label,
            code,
            message,
          });
        }
        expect(session.getContextBlock("memory")!.content).toBe("");
      },
      { requires },
    );

    suite.it(
      "appends with a newline separator, re-reading the provider so no concurrent write is lost",
      async ({ provider }) => {
        const one = Session.create(provider("a")).withContext("memory");
        const two = Session.create(provider("a")).withContext("memory");
        await one.loadContext();
        await two.appendContextBlock("memory", "from two");
        const block = await one.appendContextBlock("memory", "from one");
        expect(block.content).toBe("from two\nfrom one");
        expect(
          (await one.appendContextBlock("memory", "\nblank line")).content,
        ).toBe("from two\nfrom one\nblank line");
      },
      { requires },
    );

    suite.it(
      "leaves the block unchanged when the provider's set fails",
      async ({ provider }) => {
        const failing = writableProvider("kept", { failWrites: true });
        const session = Session.create(provider("a")).withContext("memory", {
          provider: failing,
        });
        const error = await caught(() =>
          session.replaceContextBlock("memory", "new"),
        );
        expect(messageOf(error)).toBe("provider is down");
        expect(session.getContextBlock("memory")!.content).toBe("kept");
        expect(await session.getContextBlockHistory("memory")).toEqual([]);
      },
      { requires },
    );

    suite.it(
      "adds and removes blocks at runtime; the prompt changes only on refresh",
      async ({ provider }) => {
        const session = Session.create(provider("a")).withContext("memory");
        const before = await session.freezeSystemPrompt();
        await session.addContext("notes", { description: "Scratch" });
        expect(
          (await caught(() => session.addContext("notes"))) instanceof Error,
        ).toBe(true);
        expect(await session.freezeSystemPrompt()).toBe(before);
        expect(await session.refreshSystemPrompt()).toContain(
          "NOTES (Scratch) [writable]",
        );
        expect(session.removeContext("notes")).toBe(true);
        expect(session.removeContext("notes")).toBe(false);
        expect(await session.refreshSystemPrompt()).toBe(before);
      },
      { requires },
    );

    suite.it(
      "requires an explicit provider for runtime blocks of a directly constructed session",
      async ({ provider }) => {
        const session = new Session(provider("a"));
        const error = await caught(() => session.addContext("memory"));
        expect(messageOf(error)).toBe(
          'addContext("memory") requires an explicit provider when Session uses a SessionProvider',
        );
        const block = await session.addContext("memory", {
          provider: writableProvider("x"),
        });
        expect(block.content).toBe("x");
      },
      { requires },
    );
  });

  suite.describe("system prompt", () => {
    suite.it(
      "keeps the frozen prompt through writes and shows them after a refresh",
      async ({ provider }) => {
        const session = Session.create(provider("a")).withContext("memory");
        const frozen = await session.freezeSystemPrompt();
        await session.replaceContextBlock("memory", "likes tea");
        expect(await session.freezeSystemPrompt()).toBe(frozen);
        const refreshed = await session.refreshSystemPrompt();
        expect(refreshed).toContain("likes tea");
        expect(await session.freezeSystemPrompt()).toBe(refreshed);
      },
      { requires },
    );

    suite.it(
      "readSystemPrompt reads both prompts and freezes nothing",
      async ({ provider }) => {
        const open = () =>
          Session.create(provider("a"))
            .withContext("memory")
            .withCachedPrompt();
        const session = open();
        await session.replaceContextBlock("memory", "likes tea");
        const first = await session.readSystemPrompt();
        expect(first.frozen).toBe(null);
        expect(first.current).toContain("likes tea");
        await session.replaceContextBlock("memory", "likes coffee");
        // Nothing was frozen by the read: a new session object freezes today's blocks.
        expect((await open().readSystemPrompt()).frozen).toBe(null);
        const frozen = await open().freezeSystemPrompt();
        expect(frozen).toContain("likes coffee");
        await session.replaceContextBlock("memory", "likes juice");
        const later = await session.readSystemPrompt();
        expect(later.frozen).toBe(frozen);
        expect(later.current).toContain("likes juice");
        expect(await session.freezeSystemPrompt()).toBe(frozen);
      },
      { requires },
    );

    suite.it(
      "withCachedPrompt serves the stored prompt after a restart without rendering",
      async ({ provider }) => {
        const soul = writableProvider("version one");
        const first = Session.create(provider("a"))
          .withContext("soul", { provider: soul })
          .withCachedPrompt();
        const frozen = await first.freezeSystemPrompt();
        soul.value = "version two";
        const restarted = Session.create(provider("a"))
          .withContext("soul", { provider: soul })
          .withCachedPrompt();
        expect(await restarted.freezeSystemPrompt()).toBe(frozen);
        expect(await restarted.refreshSystemPrompt()).toContain("version two");
        const again = Session.create(provider("a"))
          .withContext("soul", { provider: soul })
          .withCachedPrompt();
        expect(await again.freezeSystemPrompt()).toContain("version two");
        const otherSession = Session.create(provider("b"))
          .withContext("soul", { provider: soul })
          .withCachedPrompt();
        expect(await otherSession.freezeSystemPrompt()).toContain(
          "version two",
        );
      },
      { requires },
    );

    suite.it(
      "clearMessages re-renders the prompt and keeps block contents",
      async ({ provider }) => {
        const session = Session.create(provider("a"))
          .withContext("memory")
          .withCachedPrompt();
        await session.appendMessage(text("m1", "hello"));
        await session.freezeSystemPrompt();
        await session.replaceContextBlock("memory", "kept fact");
        await session.clearMessages();
        expect(await session.getHistory()).toEqual([]);
        expect(await session.freezeSystemPrompt()).toContain("kept fact");
      },
      { requires },
    );
  });
}
