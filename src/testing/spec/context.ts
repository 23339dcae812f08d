import { Session } from "../../session/session.js";
import type { SessionMessage } from "../../session/contracts/types.js";
import {
  readonlyProvider,
  searchProvider,
  skillProvider,
  writableProvider,
} from "../context-fixtures.js";
import { caught, caughtSync, messageOf, summarizeError } from "../helpers.js";
import type { Suite } from "../suite.js";

const SEP = "═".repeat(46);

type ToolSet = Record<
  string,
  {
    description: string;
    execute(input: unknown, options?: { toolCallId?: string }): Promise<string>;
  }
>;

/**
 * Context blocks, the frozen system prompt, the AI tools, skills and block history, on sessions
 * whose blocks are auto-wired by the store (SPEC §3.2–§3.4, §7, §8, §9). Needs a provider with
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
      "enforces the write rules with the exact errors of SPEC §7.3",
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

  suite.describe("tools", () => {
    suite.it(
      "offers no tools without blocks, and only the kinds that exist",
      async ({ provider }) => {
        expect(
          Object.keys(await Session.create(provider("a")).tools()),
        ).toEqual([]);
        const readonlyOnly = Session.create(provider("b")).withContext("soul", {
          provider: readonlyProvider("x"),
        });
        expect(Object.keys(await readonlyOnly.tools())).toEqual([]);
        const all = Session.create(provider("c"))
          .withContext("memory")
          .withContext("skills", { provider: skillProvider() })
          .withContext("kb", {
            provider: { get: async () => null, search: async () => null },
          });
        expect(Object.keys(await all.tools()).sort()).toEqual([
          "load_context",
          "search_context",
          "set_context",
          "unload_context",
        ]);
      },
      { requires },
    );

    suite.it(
      "set_context writes plain blocks and reports usage; errors come back as strings",
      async ({ provider }) => {
        const session = Session.create(provider("a"))
          .withContext("memory", {
            description: "Learned facts",
            maxTokens: 100,
          })
          .withContext("notes")
          .withContext("soul", { provider: readonlyProvider("fixed") });
        const tools = (await session.tools()) as unknown as ToolSet;
        const set = tools.set_context!;
        expect(set.description).toContain(
          "Write to a context block. Available blocks:",
        );
        expect(set.description).toContain(
          '- "memory" (writable): Learned facts',
        );
        expect(set.description).toContain(
          '- "notes" (writable): no description',
        );
        expect(
          await set.execute({ label: "memory", content: "one two three" }),
        ).toBe("Written to memory. Usage: 4% (4/100 tokens)");
        expect(
          await set.execute({ label: "notes", content: "a", action: "append" }),
        ).toBe("Written to notes. Usage: 2 tokens");
        expect(
          await set.execute({ label: "notes", content: "b", action: "append" }),
        ).toBe("Written to notes. Usage: 3 tokens");
        expect(session.getContextBlock("notes")!.content).toBe("a\nb");
        expect(await set.execute({ label: "missing", content: "x" })).toBe(
          'Error: block "missing" not found',
        );
        expect(await set.execute({ label: "soul", content: "x" })).toBe(
          'Error: Block "soul" is readonly',
        );
        expect(
          await set.execute({ label: "memory", content: "word ".repeat(200) }),
        ).toBe('Error: Block "memory" exceeds maxTokens: 260 > 100');
      },
      { requires },
    );

    suite.it(
      "set_context writes keyed entries under a stable key derived from the title or content",
      async ({ provider }) => {
        const skills = skillProvider();
        const kb = searchProvider();
        const session = Session.create(provider("a"))
          .withContext("skills", { provider: skills })
          .withContext("kb", { provider: kb });
        const tools = (await session.tools()) as unknown as ToolSet;
        const set = tools.set_context!;
        expect(set.description).toContain("metadata: { title, description }");
        expect(
          await set.execute({
            label: "skills",
            content: "Talk like a pirate.",
            metadata: { title: "Pirate style", description: "Voice" },
          }),
        ).toBe('Indexed "pirate-style" in skills.');
        expect(skills.documents.get("pirate-style")).toEqual({
          content: "Talk like a pirate.",
          description: "Voice",
        });
        expect(session.getContextBlock("skills")!.content).toBe(
          "- pirate-style: Voice",
        );
        const result = await set.execute({ label: "kb", content: "no key" });
        expect(result.startsWith('Indexed "no-key-')).toBe(true);
        expect(session.getContextBlock("kb")!.content).toBe(
          "1 entries indexed.",
        );
        const cjk = await set.execute({ label: "kb", content: "用户喜欢咖啡" });
        expect(cjk.startsWith('Indexed "entry-')).toBe(true);
      },
      { requires },
    );

    suite.it(
      "load_context, unload_context and search_context return the strings of SPEC §8.2",
      async ({ provider }) => {
        const session = Session.create(provider("a"))
          .withContext("memory")
          .withContext("skills", {
            provider: skillProvider({ "api-ref": { content: "The API." } }),
          })
          .withContext("kb", {
            provider: searchProvider({ tea: "likes green tea" }),
          });
        const tools = (await session.tools()) as unknown as ToolSet;
        expect(tools.unload_context!.description).toContain(
          "No skills currently loaded.",
        );
        expect(
          await tools.load_context!.execute({
            label: "skills",
            key: "api-ref",
          }),
        ).toBe("The API.");
        expect(
          await tools.load_context!.execute({
            label: "skills",
            key: "missing",
          }),
        ).toBe("Not found: missing");
        expect(
          await tools.load_context!.execute({ label: "memory", key: "x" }),
        ).toBe('Error: "memory" is not a skill block. Skill blocks: skills');
        expect([...(await session.getLoadedSkillKeys())]).toEqual([
          "skills:api-ref",
        ]);
        const retooled = (await session.tools()) as unknown as ToolSet;
        expect(retooled.unload_context!.description).toContain(
          "Currently loaded: skills:api-ref.",
        );
        expect(
          await tools.unload_context!.execute({
            label: "skills",
            key: "other",
          }),
        ).toBe('Skill "other" is not currently loaded in "skills".');
        expect(
          await tools.unload_context!.execute({
            label: "skills",
            key: "api-ref",
          }),
        ).toBe('Unloaded "api-ref" from skills. Context reclaimed.');
        expect(
          await tools.search_context!.execute({ label: "kb", query: "green" }),
        ).toBe("[tea]\nlikes green tea");
        expect(
          await tools.search_context!.execute({ label: "kb", query: "coffee" }),
        ).toBe("No results found.");
        expect(
          await tools.search_context!.execute({ label: "skills", query: "x" }),
        ).toBe('Error: "skills" is not searchable. Searchable blocks: kb');
      },
      { requires },
    );
  });

  suite.describe("skills lifecycle", () => {
    const skillBlocks = (session: Session) =>
      session.withContext("skills", {
        provider: skillProvider({
          "api-ref": { content: "BODY" },
          style: { content: "STYLE" },
        }),
      });

    suite.it(
      "restores loaded skills after a restart from static and dynamic tool parts",
      async ({ provider }) => {
        const writer = Session.create(provider("a"));
        await writer.appendMessage(text("u1", "load it"));
        await writer.appendMessage({
          id: "a1",
          role: "assistant",
          parts: [
            loadPart("c1", "skills", "api-ref", "BODY"),
            {
              type: "dynamic-tool",
              toolName: "load_context",
              toolCallId: "c2",
              state: "output-available",
              input: { label: "skills", key: "style" },
              output: "STYLE",
            },
            {
              type: "tool-load_context",
              toolCallId: "c3",
              state: "input-available",
              input: { label: "skills", key: "pending" },
            },
          ],
        });
        const restarted = skillBlocks(Session.create(provider("a")));
        expect([...(await restarted.getLoadedSkillKeys())].sort()).toEqual([
          "skills:api-ref",
          "skills:style",
        ]);
        await restarted.appendMessage({
          id: "a2",
          role: "assistant",
          parts: [unloadPart("c4", "skills", "style")],
        });
        const again = skillBlocks(Session.create(provider("a")));
        expect([...(await again.getLoadedSkillKeys())]).toEqual([
          "skills:api-ref",
        ]);
      },
      { requires },
    );

    suite.it(
      "unloading rewrites every stored load of that skill to the marker, awaited",
      async ({ provider }) => {
        const session = skillBlocks(Session.create(provider("a")));
        await session.appendMessage(text("u1", "q"));
        await session.appendMessage({
          id: "a1",
          role: "assistant",
          parts: [loadPart("c1", "skills", "api-ref", "BODY")],
        });
        await session.appendMessage(text("u2", "q2"));
        await session.appendMessage({
          id: "a2",
          role: "assistant",
          parts: [
            loadPart("c2", "skills", "api-ref", "BODY"),
            loadPart("c3", "skills", "style", "STYLE"),
          ],
        });
        const restarted = skillBlocks(Session.create(provider("a")));
        expect(await restarted.unloadSkill("skills", "api-ref")).toBe(true);
        expect(await restarted.unloadSkill("skills", "api-ref")).toBe(false);
        const outputs = (await restarted.getHistory()).flatMap((message) =>
          message.parts
            .filter((part) => part.type === "tool-load_context")
            .map((part) => part.output),
        );
        expect(outputs).toEqual([
          "[skill unloaded: api-ref]",
          "[skill unloaded: api-ref]",
          "STYLE",
        ]);
        expect([...(await restarted.getLoadedSkillKeys())]).toEqual([
          "skills:style",
        ]);
      },
      { requires },
    );

    suite.it(
      "reclaims a skill loaded and unloaded within the message being written",
      async ({ provider }) => {
        const session = Session.create(provider("a"));
        await session.appendMessage({
          id: "a1",
          role: "assistant",
          parts: [
            loadPart("c1", "skills", "api-ref", "BODY"),
            { type: "text", text: "done" },
            unloadPart("c2", "skills", "api-ref"),
          ],
        });
        const stored = await session.getMessage("a1");
        expect(stored!.parts[0]!.output).toBe("[skill unloaded: api-ref]");
        await session.updateMessage({
          id: "a1",
          role: "assistant",
          parts: [
            loadPart("c1", "skills", "style", "STYLE"),
            unloadPart("c2", "skills", "style"),
          ],
        });
        expect((await session.getMessage("a1"))!.parts[0]!.output).toBe(
          "[skill unloaded: style]",
        );
      },
      { requires },
    );

    suite.it(
      "clearMessages and removeContext forget loaded skills",
      async ({ provider }) => {
        const session = skillBlocks(Session.create(provider("a")));
        const tools = (await session.tools()) as unknown as ToolSet;
        await tools.load_context!.execute({ label: "skills", key: "api-ref" });
        expect((await session.getLoadedSkillKeys()).size).toBe(1);
        await session.clearMessages();
        expect((await session.getLoadedSkillKeys()).size).toBe(0);
        await tools.load_context!.execute({ label: "skills", key: "api-ref" });
        expect(session.removeContext("skills")).toBe(true);
        expect((await session.getLoadedSkillKeys()).size).toBe(0);
      },
      { requires },
    );
  });

  suite.describe("block history", () => {
    suite.it(
      "records every write with its source and previous content, durably",
      async ({ provider }) => {
        const session = Session.create(provider("a")).withContext("memory");
        await session.replaceContextBlock("memory", "one");
        await session.appendContextBlock("memory", "two");
        const tools = (await session.tools()) as unknown as ToolSet;
        await tools.set_context!.execute(
          { label: "memory", content: "three" },
          { toolCallId: "call-9" },
        );
        const restarted = Session.create(provider("a")).withContext("memory");
        const history = await restarted.getContextBlockHistory("memory");
        expect(
          history.map(
            ({ version, content, previousContent, source, toolCallId }) => ({
              version,
              content,
              previousContent,
              source,
              toolCallId,
            }),
          ),
        ).toEqual([
          {
            version: 1,
            content: "one",
            previousContent: "",
            source: "api",
            toolCallId: undefined,
          },
          {
            version: 2,
            content: "one\ntwo",
            previousContent: "one",
            source: "api",
            toolCallId: undefined,
          },
          {
            version: 3,
            content: "three",
            previousContent: "one\ntwo",
            source: "tool",
            toolCallId: "call-9",
          },
        ]);
        expect(
          history.every((entry) =>
            /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(entry.at),
          ),
        ).toBe(true);
        expect(
          await Session.create(provider("b"))
            .withContext("memory")
            .getContextBlockHistory("memory"),
        ).toEqual([]);
      },
      { requires },
    );

    suite.it(
      "reverts to a version with the replace rules and records the revert",
      async ({ provider }) => {
        const session = Session.create(provider("a")).withContext("memory", {
          maxTokens: 5,
        });
        await session.replaceContextBlock("memory", "first");
        await session.replaceContextBlock("memory", "second");
        const reverted = await session.revertContextBlock("memory", 1);
        expect(reverted.content).toBe("first");
        const history = await session.getContextBlockHistory("memory");
        expect(
          history.map((entry) => [entry.version, entry.source, entry.content]),
        ).toEqual([
          [1, "api", "first"],
          [2, "api", "second"],
          [3, "revert", "first"],
        ]);
        const error = await caught(() =>
          session.revertContextBlock("memory", 9),
        );
        expect({
          code: summarizeError(error).code,
          message: messageOf(error),
        }).toEqual({
          code: "BLOCK_VERSION_NOT_FOUND",
          message: 'Block "memory" has no version 9',
        });
      },
      { requires },
    );
  });

  suite.describe("status events", () => {
    suite.it(
      "onStatus hears idle after every write and can unsubscribe",
      async ({ provider }) => {
        const session = Session.create(provider("a"));
        const phases: string[] = [];
        const stop = session.onStatus((event) => {
          phases.push("phase" in event ? event.phase : event.type);
        });
        await session.appendMessage(text("m1", "hi"));
        await session.appendMessage(text("m1", "duplicate"));
        await session.updateMessage(text("m1", "edited"));
        await session.deleteMessages(["nope"]);
        await session.clearMessages();
        stop();
        await session.appendMessage(text("m2", "unheard"));
        expect(phases).toEqual(["idle", "idle", "idle", "idle", "idle"]);
      },
      { requires },
    );
  });
}

// --- Internal helpers ---

function text(id: string, value: string): SessionMessage {
  return { id, role: "user", parts: [{ type: "text", text: value }] };
}

function loadPart(callId: string, label: string, key: string, output: string) {
  return {
    type: "tool-load_context",
    toolCallId: callId,
    state: "output-available",
    input: { label, key },
    output,
  };
}

function unloadPart(callId: string, label: string, key: string) {
  return {
    type: "tool-unload_context",
    toolCallId: callId,
    state: "output-available",
    input: { label, key },
    output: `Unloaded "${key}" from ${label}. Context reclaimed.`,
  };
}
