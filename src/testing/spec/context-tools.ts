import { Session } from "../../session/facade/session.js";
import {
  readonlyProvider,
  searchProvider,
  skillProvider,
} from "../context-fixtures.js";
import type { Suite } from "../suite.js";
import { type ToolSet, text, loadPart, unloadPart } from "./context-support.js";

export function contextToolsSpec(rootSuite: Suite): void {
  const suite = rootSuite.withLayer("session");
  const { expect } = suite;
  const requires = { contextBlocks: true } as const;

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
        const tools = (await session.tools()) as ToolSet;
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
        const tools = (await session.tools()) as ToolSet;
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
      "load_context, unload_context and search_context return the strings of docs/behavior/context-blocks.md",
      async ({ provider }) => {
        const session = Session.create(provider("a"))
          .withContext("memory")
          .withContext("skills", {
            provider: skillProvider({ "api-ref": { content: "The API." } }),
          })
          .withContext("kb", {
            provider: searchProvider({ tea: "likes green tea" }),
          });
        const tools = (await session.tools()) as ToolSet;
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
        const retooled = (await session.tools()) as ToolSet;
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
        // Any term that counts finds an entry, as in message search: a question finds it.
        expect(
          await tools.search_context!.execute({
            label: "kb",
            query: "Does the user like green tea?",
          }),
        ).toBe("[tea]\nlikes green tea");
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
        const tools = (await session.tools()) as ToolSet;
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
}
