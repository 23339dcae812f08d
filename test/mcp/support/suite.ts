// The MCP cases every transport runs, with the SDK's own Client against a server seeded with
// fixtures.ts: list tools and resources, call every tool, pagination, token budgets and bad input.
// The cases run in order and share one store: the writing cases come after the reading ones.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { expect, it } from "vitest";
import { estimateStringTokensMultilingual } from "../../../src/utils/index.js";

export const TOOL_NAMES = [
  "search_memory",
  "list_sessions",
  "read_conversation",
  "get_branches",
  "remember",
  "read_memory",
  "update_memory",
  "forget",
];

/** Calls a tool and returns its result, typed loosely for assertions. */
export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<CallToolResult & { structuredContent?: any }> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The text rendering of a result. */
export function textOf(result: CallToolResult): string {
  return result.content
    .map((part) => (part.type === "text" ? part.text : ""))
    .join("\n");
}

/** A successful call's structured content; fails the test with the error text otherwise. */
export async function ok(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<any> {
  const result = await call(client, name, args);
  expect(result.isError, textOf(result)).toBeFalsy();
  expect(textOf(result).length).toBeGreaterThan(0);
  return result.structuredContent;
}

/** A failed call's error code, after checking it failed as a tool result. */
export async function failure(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<{ code: string; message: string }> {
  const result = await call(client, name, args);
  expect(result.isError, JSON.stringify(result)).toBe(true);
  expect(textOf(result)).toContain(result.structuredContent.error.code);
  return result.structuredContent.error;
}

/**
 * Registers the shared cases. `client()` is the connected client of the current run; `notesId`
 * the notes session this connection's `remember` writes to.
 */
export function mcpCases(options: {
  client: () => Client;
  notesId: string;
}): void {
  const client = () => options.client();

  it("lists the eight tools with JSON Schema inputs and truthful annotations", async () => {
    const { tools } = await client().listTools();
    expect(tools.map((tool) => tool.name)).toEqual(TOOL_NAMES);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.description!.length).toBeGreaterThan(40);
    }
    const byName = new Map(tools.map((tool) => [tool.name, tool.annotations]));
    for (const name of [
      "search_memory",
      "list_sessions",
      "read_conversation",
      "get_branches",
      "read_memory",
    ])
      expect(byName.get(name), name).toMatchObject({
        readOnlyHint: true,
        destructiveHint: false,
      });
    expect(byName.get("remember")).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
    });
    expect(byName.get("forget")).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
    });
    const search = tools.find((tool) => tool.name === "search_memory")!;
    expect(search.inputSchema.required).toEqual(["query"]);
    expect(Object.keys(search.inputSchema.properties!)).toEqual([
      "query",
      "mode",
      "scope",
      "sessionId",
      "since",
      "until",
      "prefix",
      "limit",
      "cursor",
    ]);
  });

  it("search_memory ranks hits across sessions with snippet, session name, time, branch and why", async () => {
    const answer = await ok(client(), "search_memory", {
      query: "launch budget",
    });
    const ids = answer.results.map((hit: any) => hit.messageId);
    expect(ids).toEqual(
      expect.arrayContaining(["u1", "a1", "a2", "a2b", "u3"]),
    );
    const abandoned = answer.results.find((hit: any) => hit.messageId === "a2");
    expect(abandoned).toMatchObject({
      sessionId: "launch",
      sessionName: "Launch planning",
      role: "assistant",
      createdAt: "2026-10-01T09:06:00.000Z",
      branch: "other",
      matched: { text: true },
    });
    expect(abandoned.snippet).toContain("«");
    expect(
      answer.results.find((hit: any) => hit.messageId === "a2b").branch,
    ).toBe("active");
    const text = textOf(
      await call(client(), "search_memory", { query: "launch budget" }),
    );
    expect(text).toContain("Launch planning (launch)");
    expect(text).toContain("other branch");
  });

  it("search_memory finds summaries, and read_conversation reads around them", async () => {
    const found = await ok(client(), "search_memory", {
      query: "hybrid index",
    });
    const summary = found.results.find((hit: any) => hit.kind === "summary");
    expect(summary).toMatchObject({
      sessionId: "long-chat",
      messageId: "overlay-1",
    });
    const around = await ok(client(), "read_conversation", {
      sessionId: "long-chat",
      aroundMessageId: summary.messageId,
      limit: 3,
    });
    expect(around.messages[0]).toMatchObject({
      kind: "summary",
      text: expect.stringContaining("hybrid index"),
    });
  });

  it("search_memory filters by since/until and by one session's active branch", async () => {
    const since = await ok(client(), "search_memory", {
      query: "launch budget",
      since: "2026-11-01",
    });
    expect(since.results.map((hit: any) => hit.messageId)).toEqual(["u3"]);
    const until = await ok(client(), "search_memory", {
      query: "launch budget",
      until: "2026-10-01T09:02:00Z",
    });
    expect(until.results.map((hit: any) => hit.messageId).sort()).toEqual([
      "a1",
      "u1",
    ]);
    const branch = await ok(client(), "search_memory", {
      query: "launch budget",
      sessionId: "launch",
      scope: "branch",
    });
    const ids = branch.results.map((hit: any) => hit.messageId);
    expect(ids).toContain("a2b");
    expect(ids).not.toContain("a2");
    expect(
      branch.results.every((hit: any) => hit.sessionName === "Launch planning"),
    ).toBe(true);
    // Across sessions too, pages of the branch scope hold only active-branch hits.
    const everywhere = await ok(client(), "search_memory", {
      query: "launch budget",
      scope: "branch",
      limit: 2,
    });
    const pageTwo = await ok(client(), "search_memory", {
      query: "launch budget",
      scope: "branch",
      limit: 2,
      cursor: everywhere.nextCursor,
    });
    expect(pageTwo.nextCursor).toBeNull();
    const onBranches = [...everywhere.results, ...pageTwo.results].map(
      (hit: any) => hit.messageId,
    );
    expect(onBranches.sort()).toEqual(["a1", "a2b", "u1", "u3"]);
  });

  it("search_memory pages with a cursor, without repeats", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await ok(client(), "search_memory", {
        query: "launch budget",
        limit: 2,
        ...(cursor ? { cursor } : {}),
      });
      expect(page.results.length).toBeLessThanOrEqual(2);
      seen.push(...page.results.map((hit: any) => hit.messageId));
      cursor = page.nextCursor ?? undefined;
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.sort()).toEqual(["a1", "a2", "a2b", "u1", "u3"]);
  });

  it("list_sessions pages through every session and filters by name", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await ok(client(), "list_sessions", {
        limit: 10,
        ...(cursor ? { cursor } : {}),
      });
      expect(page.sessions.length).toBeLessThanOrEqual(10);
      seen.push(...page.sessions.map((s: any) => s.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen.length).toBe(29);
    expect(new Set(seen).size).toBe(29);
    const launch = await ok(client(), "list_sessions", {
      query: "LAUNCH plan",
    });
    expect(launch.sessions).toEqual([
      expect.objectContaining({
        id: "launch",
        name: "Launch planning",
        messageCount: 6,
      }),
    ]);
    expect(launch.nextCursor).toBeNull();
    // Filtered pages continue where the last one stopped.
    const first = await ok(client(), "list_sessions", {
      query: "standup",
      limit: 20,
    });
    const rest = await ok(client(), "list_sessions", {
      query: "standup",
      cursor: first.nextCursor,
    });
    expect(first.sessions.length + rest.sessions.length).toBe(26);
    expect(rest.nextCursor).toBeNull();
  });

  it("read_conversation reads windows of a branch, never the whole session", async () => {
    const latest = await ok(client(), "read_conversation", {
      sessionId: "long-chat",
      limit: 10,
    });
    // Ten messages under one summary: 51 entries on the branch.
    expect([latest.total, latest.from, latest.to, latest.leafId]).toEqual([
      51,
      41,
      51,
      "m60",
    ]);
    expect(latest.messages.map((m: any) => m.id)).toEqual(
      Array.from({ length: 10 }, (_, i) => `m${51 + i}`),
    );
    const older = await ok(client(), "read_conversation", {
      sessionId: "long-chat",
      limit: 10,
      cursor: latest.nextCursor,
    });
    expect([older.from, older.to]).toEqual([31, 41]);
    const newer = await ok(client(), "read_conversation", {
      sessionId: "long-chat",
      limit: 10,
      cursor: older.newerCursor,
    });
    expect([newer.from, newer.to]).toEqual([41, 51]);
    // Paging back to the start: the summary stands where its ten messages were.
    let start = newer;
    for (let pages = 0; start.nextCursor && pages < 10; pages++)
      start = await ok(client(), "read_conversation", {
        sessionId: "long-chat",
        limit: 10,
        cursor: start.nextCursor,
      });
    expect(start.from).toBe(0);
    expect(start.messages[0]).toMatchObject({
      kind: "summary",
      role: "assistant",
    });
    expect(start.messages[0].text).toContain("hybrid index");

    // Around a message on a branch the session left: the window is on that branch.
    const around = await ok(client(), "read_conversation", {
      sessionId: "launch",
      aroundMessageId: "a2",
    });
    expect(around.leafId).toBe("a2");
    expect(around.messages.map((m: any) => m.id)).toEqual([
      "u1",
      "a1",
      "u2",
      "a2",
    ]);
    const leaf = await ok(client(), "read_conversation", {
      sessionId: "launch",
      leafId: "a1",
    });
    expect(leaf.messages.map((m: any) => m.id)).toEqual(["u1", "a1"]);
    const active = await ok(client(), "read_conversation", {
      sessionId: "launch",
    });
    expect(active.messages.map((m: any) => m.id)).toEqual([
      "u1",
      "a1",
      "u2",
      "a2b",
      "u3",
    ]);
  });

  it("keeps every answer inside the default 4,000-token budget, handing out a cursor", async () => {
    const result = await call(client(), "read_conversation", {
      sessionId: "long-chat",
      limit: 100,
    });
    const answer = result.structuredContent;
    expect(
      estimateStringTokensMultilingual(JSON.stringify(answer)),
    ).toBeLessThanOrEqual(4_000);
    expect(
      estimateStringTokensMultilingual(textOf(result)),
    ).toBeLessThanOrEqual(4_000);
    expect(answer.to).toBe(51);
    expect(answer.from).toBeGreaterThan(0);
    expect(answer.nextCursor).toEqual(expect.any(String));
    const sessions = await call(client(), "list_sessions", { limit: 100 });
    expect(
      estimateStringTokensMultilingual(
        JSON.stringify(sessions.structuredContent),
      ),
    ).toBeLessThanOrEqual(4_000);
  });

  it("get_branches lists the children of a branch point, the active one marked", async () => {
    const answer = await ok(client(), "get_branches", {
      sessionId: "launch",
      messageId: "u2",
    });
    expect(answer.branches.map((b: any) => [b.id, b.onActiveBranch])).toEqual([
      ["a2", false],
      ["a2b", true],
    ]);
    expect(answer.branches[0].preview).toContain("$40k");
    const leaf = await ok(client(), "get_branches", {
      sessionId: "launch",
      messageId: "u3",
    });
    expect(leaf.branches).toEqual([]);
  });

  it("lists and reads resources: transcripts of active branches and blocks, paginated", async () => {
    const first = await client().listResources();
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await client().listResources({ cursor: first.nextCursor! });
    const uris = [...first.resources, ...second.resources].map((r) => r.uri);
    expect(uris).toContain("arbor://sessions/launch");
    expect(uris).toContain("arbor://sessions/launch/blocks/memory");
    expect(uris.filter((uri) => !uri.includes("/blocks/")).length).toBe(29);
    const { resourceTemplates } = await client().listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      "arbor://sessions/{id}",
      "arbor://sessions/{id}/blocks/{label}",
    ]);
    const transcript = await client().readResource({
      uri: "arbor://sessions/launch",
    });
    const text = String((transcript.contents[0] as { text: string }).text);
    expect(text).toContain("# Launch planning");
    expect(text).toContain("$35k");
    expect(text).not.toContain("$40k");
    const block = await client().readResource({
      uri: "arbor://sessions/launch/blocks/memory",
    });
    expect((block.contents[0] as { text: string }).text).toBe(
      "The user prefers short answers.",
    );
    const long = await client().readResource({
      uri: "arbor://sessions/long-chat",
    });
    const longText = (long.contents[0] as { text: string }).text;
    expect(estimateStringTokensMultilingual(longText)).toBeLessThanOrEqual(
      4_000,
    );
    expect(longText).toContain("oldest are omitted");
    await expect(
      client().readResource({ uri: "arbor://sessions/nope" }),
    ).rejects.toThrow(/SESSION_NOT_FOUND/);
  });

  it("a resource error carries Arbor's code in its data, and its message says it once", async () => {
    for (const [uri, code] of [
      ["arbor://sessions/nope", "SESSION_NOT_FOUND"],
      ["arbor://elsewhere", "INVALID_ARGUMENT"],
      ["arbor://sessions/nope/blocks/memory", "SESSION_NOT_FOUND"],
    ] as const) {
      const error = (await client()
        .readResource({ uri })
        .then(
          () => null,
          (caught: unknown) => caught,
        )) as { code: number; message: string; data?: unknown } | null;
      expect(error, uri).not.toBeNull();
      // -32602: invalid params, the JSON-RPC code for a bad URI or id.
      expect(error!.code).toBe(-32602);
      expect(error!.data).toEqual({ code, message: expect.any(String) });
      expect(error!.message).toMatch(
        new RegExp(`^MCP error -32602: ${code}: \\S`),
      );
    }
  });

  it("search_memory with a query of emoji only says nothing in it was searchable, not that nothing matched", async () => {
    const result = await call(client(), "search_memory", {
      query: "🎉🚀",
      mode: "text",
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.results).toEqual([]);
    expect(textOf(result)).toContain('Nothing to search for in "🎉🚀"');
    expect(textOf(result)).not.toContain("No memory matches");
  });

  it("answers bad arguments, unknown ids and unknown tools with isError results", async () => {
    expect((await failure(client(), "search_memory", {})).message).toContain(
      '"query" is required',
    );
    expect(
      (await failure(client(), "search_memory", { query: "x", limit: 101 }))
        .message,
    ).toContain("at most 100");
    expect(
      (
        await failure(client(), "search_memory", {
          query: "x",
          since: "last tuesday",
        })
      ).code,
    ).toBe("INVALID_ARGUMENT");
    expect(
      (await failure(client(), "search_memory", { query: "x", mode: "fuzzy" }))
        .code,
    ).toBe("INVALID_ARGUMENT");
    expect(
      (await failure(client(), "list_sessions", { color: "red" })).message,
    ).toContain('unknown argument "color"');
    expect(
      (await failure(client(), "list_sessions", { cursor: "garbage" })).message,
    ).toContain("cursor");
    expect(
      (await failure(client(), "read_conversation", { sessionId: "nope" }))
        .code,
    ).toBe("SESSION_NOT_FOUND");
    expect(
      (
        await failure(client(), "read_conversation", {
          sessionId: "launch",
          leafId: "zz",
        })
      ).code,
    ).toBe("MESSAGE_NOT_FOUND");
    expect(
      (
        await failure(client(), "get_branches", {
          sessionId: "launch",
          messageId: 7,
        })
      ).code,
    ).toBe("INVALID_ARGUMENT");
    expect(
      (
        await failure(client(), "read_memory", {
          sessionId: "launch",
          label: "nope",
        })
      ).code,
    ).toBe("BLOCK_NOT_FOUND");
    expect(
      (
        await failure(client(), "update_memory", {
          label: "memory",
          content: "x",
          mode: "merge",
        })
      ).code,
    ).toBe("INVALID_ARGUMENT");
    expect((await failure(client(), "forget", {})).message).toContain(
      '"sessionId" is required',
    );
    expect(
      (await failure(client(), "forget", { messageIds: ["t1"] })).code,
    ).toBe("INVALID_ARGUMENT");
    expect((await failure(client(), "no_such_tool", {})).message).toContain(
      "Unknown tool",
    );
    // Nothing was forgotten by the refused calls.
    expect(
      (await ok(client(), "read_conversation", { sessionId: "trip" })).total,
    ).toBe(2);
  });

  it("remember appends to the fixed notes session, which search then finds", async () => {
    const first = await ok(client(), "remember", {
      text: "Decided: the launch party is on the roof.",
    });
    expect(first.sessionId).toBe(options.notesId);
    const second = await ok(client(), "remember", {
      text: "Ada prefers email.",
      role: "assistant",
    });
    expect(second.sessionId).toBe(options.notesId);
    const notes = await ok(client(), "read_conversation", {
      sessionId: options.notesId,
    });
    expect(notes.messages.map((m: any) => m.id)).toEqual([
      first.messageId,
      second.messageId,
    ]);
    expect(notes.messages[1].role).toBe("assistant");
    const found = await ok(client(), "search_memory", {
      query: "launch party roof",
    });
    expect(found.results[0]).toMatchObject({
      sessionId: options.notesId,
      sessionName: "Notes",
    });
    const into = await ok(client(), "remember", {
      text: "Follow-up: book the venue.",
      sessionId: "launch",
    });
    expect(into.sessionId).toBe("launch");
    const launch = await ok(client(), "read_conversation", {
      sessionId: "launch",
      limit: 1,
    });
    expect(launch.messages[0].text).toBe("Follow-up: book the venue.");
  });

  it("read_memory and update_memory read and write blocks with their history", async () => {
    const before = await ok(client(), "read_memory", { sessionId: "launch" });
    expect(before.blocks).toEqual([
      expect.objectContaining({
        label: "memory",
        content: "The user prefers short answers.",
        writable: true,
      }),
    ]);
    const appended = await ok(client(), "update_memory", {
      sessionId: "launch",
      label: "memory",
      content: "\nBudget owner: Ada.",
      mode: "append",
    });
    expect(appended.block.content).toContain("Budget owner: Ada.");
    const replaced = await ok(client(), "update_memory", {
      sessionId: "launch",
      label: "memory",
      content: "Budget capped at $35k.",
      mode: "replace",
    });
    expect(replaced.version).toBeGreaterThan(appended.version);
    const history = await ok(client(), "read_memory", {
      sessionId: "launch",
      label: "memory",
    });
    expect(history.block.content).toBe("Budget capped at $35k.");
    expect(history.versions.at(-1)).toMatchObject({
      version: replaced.version,
      content: "Budget capped at $35k.",
    });
    expect(history.versions.length).toBeGreaterThanOrEqual(2);
    // Without a session: the notes session's blocks.
    const notes = await ok(client(), "update_memory", {
      label: "memory",
      content: "Notes block.",
      mode: "replace",
    });
    expect(notes.sessionId).toBe(options.notesId);
    expect((await ok(client(), "read_memory", {})).blocks[0].content).toBe(
      "Notes block.",
    );
  });

  it("forget erases messages, then a whole session, with receipts", async () => {
    const some = await ok(client(), "forget", {
      sessionId: "trip",
      messageIds: ["t2"],
    });
    expect(some.receipt).toMatchObject({ sessions: 0, messages: 1 });
    expect(
      (await ok(client(), "read_conversation", { sessionId: "trip" })).total,
    ).toBe(1);
    const whole = await ok(client(), "forget", { sessionId: "trip" });
    expect(whole.receipt).toMatchObject({ sessions: 1, messages: 1 });
    expect(whole.receipt.erasedAt).toEqual(expect.any(String));
    expect(
      (await failure(client(), "read_conversation", { sessionId: "trip" }))
        .code,
    ).toBe("SESSION_NOT_FOUND");
    expect(
      (await ok(client(), "search_memory", { query: "Lisbon" })).results,
    ).toEqual([]);
  });
}
