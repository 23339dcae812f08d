// Codex CLI rollouts: a real rollout (messages only) and one written from the format with every
// kind of tool call, reasoning and a compaction, detected from their content and imported with
// the calls as AI SDK tool parts.
import { describe, expect, it } from "vitest";
import {
  detectFormat,
  importConversations,
  importConversationsWithReport,
  parseConversations,
} from "../../src/formats/index.js";
import type {
  SessionMessage,
  SessionSnapshot,
} from "../../src/session/index.js";
import { fixture, ids, sqliteManager, textOf } from "./support.js";

const REAL_NAME =
  "rollout-2025-12-28T12-18-30-019b64e5-57fa-7463-b644-fba7e456f905.jsonl";
const REAL = fixture(REAL_NAME);
const TOOLS = fixture("codex-rollout-tools.jsonl");
// Written by hand in the layout of real rollouts (fixtures/README.md): the desktop app's, whose
// prompts are only `user_message` events, and the first turn of a CLI one with its injected
// permissions, AGENTS.md and environment messages. The real files run in real-files.test.ts.
const DESKTOP_NAME = "codex-desktop-rollout.jsonl";
const DESKTOP = fixture(DESKTOP_NAME);
const CLI = fixture("codex-cli-first-turn.jsonl");

/** The record of message `id` in a parsed snapshot. */
function recordOf(messages: SessionSnapshot["messages"], id: string) {
  return messages.find((record) => record.message.id === id);
}

/** The part types of a message, one list per step (split at its `step-start` parts). */
function stepsOf(message: SessionMessage): string[][] {
  const steps: string[][] = [];
  for (const part of message.parts)
    if (part.type === "step-start") steps.push([]);
    else steps.at(-1)!.push(part.type);
  return steps;
}

describe("Codex CLI rollouts", () => {
  it("detects and reads a real rollout", () => {
    expect(detectFormat(REAL)).toBe("codex");
    const [parsed] = parseConversations(REAL, { fileName: REAL_NAME });
    expect(parsed!.format).toBe("codex");
    expect(parsed!.snapshot.sessionId).toBe(
      "019b64e5-57fa-7463-b644-fba7e456f905",
    );
    // The AGENTS.md and environment messages are kept, but the title is the user's question.
    expect(
      parsed!.snapshot.messages.map((record) => record.message.role),
    ).toEqual(["user", "user", "user"]);
    expect(parsed!.title).toBe(
      "can you analyse the MD files in this directory and determ...",
    );
    expect(parsed!.snapshot.messages[2]!.createdAt).toBe(
      "2025-12-28T12:21:44.491Z",
    );
  });

  it("imports calls, outputs, reasoning and the compaction", async () => {
    expect(detectFormat(TOOLS)).toBe("codex");
    const manager = sqliteManager();
    const conversations = parseConversations(TOOLS);
    const [info] = await importConversations(manager, conversations);
    expect(info!.name).toBe(
      "The forecast CLI prints temperatures in Fahrenheit even w...",
    );
    const snapshot = await manager.exportSession(info!.id);
    const messages = snapshot.messages.map((record) => record.message);
    expect(messages.map((message) => [message.id, message.role])).toEqual([
      ["codex-2", "user"],
      ["codex-4", "user"],
      ["codex-6", "assistant"],
      ["codex-22", "user"],
      ["codex-23", "assistant"],
    ]);
    // One assistant message per turn, its id the line of its first item; a tool output ends a
    // step, and each step opens with `step-start`.
    const turn = messages[2]!;
    expect(turn.parts[0]).toEqual({ type: "step-start" });
    expect(stepsOf(turn)).toEqual([
      ["reasoning", "tool-shell", "tool-shell"],
      ["text", "tool-apply_patch"],
      ["tool-local_shell"],
      ["text"],
    ]);
    const tools = turn.parts.filter((part) => part.type.startsWith("tool-"));
    expect(tools[0]).toEqual({
      type: "tool-shell",
      toolCallId: "call_Rg01",
      state: "output-available",
      input: {
        command: ["bash", "-lc", 'rg -n "metric" src'],
        workdir: "/home/dev/weather",
        timeout_ms: 120000,
      },
      output: {
        output:
          "src/cli.ts:12:  .option('--metric', 'Celsius')\nsrc/cli.ts:30:  print(forecast, options.metrc)\n",
        metadata: { exit_code: 0, duration_seconds: 0.1 },
      },
    });
    expect(tools.map((part) => part.state)).toEqual([
      "output-available",
      "output-available",
      "output-available",
      "output-available",
    ]);
    expect(tools[2]!.output).toBe(
      "Success. Updated the following files:\nM src/cli.ts\n",
    );
    expect(tools[3]).toMatchObject({
      type: "tool-local_shell",
      input: { type: "exec", command: ["npm", "test"] },
      output: { output: "Tests: 14 passed, 14 total\n" },
    });
    expect(turn.parts.filter((part) => part.type === "text").at(-1)!.text).toBe(
      "Fixed: `--metric` now prints Celsius; all 14 tests pass.",
    );
    // A search has no output item: the answer after it is the same step.
    expect(stepsOf(messages[4]!)).toEqual([["tool-web_search", "text"]]);
    expect(messages[4]!.parts[1]).toMatchObject({
      type: "tool-web_search",
      input: { type: "search", query: "Open-Meteo commercial use licence" },
    });
    // The compaction covers everything before it; the history starts with its summary.
    const history = await manager.getSession(info!.id).getHistory();
    expect(textOf(history[0])).toContain("the cause was a typo");
    expect(ids(history).slice(1)).toEqual(["codex-22", "codex-23"]);
    expect(conversations[0]!.skipped).toEqual([
      expect.objectContaining({ what: "encrypted reasoning" }),
    ]);
  });

  it("reads an early rollout without the payload wrapper by its file name", () => {
    const early = [
      '{"id":"5c3a9e1f-1111-4222-8333-944455556666","timestamp":"2025-05-02T10:00:00.000Z","instructions":null}',
      '{"type":"message","role":"user","content":[{"type":"input_text","text":"List the files"}]}',
      '{"record_type":"state"}',
      '{"type":"function_call","name":"shell","arguments":"{\\"command\\":[\\"ls\\"]}","call_id":"call_1"}',
      '{"type":"function_call_output","call_id":"call_1","output":"{\\"output\\":\\"README.md\\\\n\\",\\"metadata\\":{\\"exit_code\\":0}}"}',
      '{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Just README.md."}]}',
    ].join("\n");
    const name = "rollout-2025-05-02T10-00-00-5c3a9e1f.jsonl";
    expect(detectFormat(early, name)).toBe("codex");
    const [parsed] = parseConversations(early, { fileName: name });
    expect(parsed!.snapshot.sessionId).toBe(
      "5c3a9e1f-1111-4222-8333-944455556666",
    );
    expect(
      parsed!.snapshot.messages.map((record) =>
        record.message.parts.map((part) => part.type),
      ),
    ).toEqual([["text"], ["step-start", "tool-shell", "step-start", "text"]]);
  });

  it("keeps every prompt of a desktop app rollout, written only as events, one assistant message per turn", async () => {
    const [parsed] = parseConversations(DESKTOP, { fileName: DESKTOP_NAME });
    const messages = parsed!.snapshot.messages;
    // Each prompt sits where it was typed, after the answer of the turn before; the answer of
    // each turn (reasoning, every tool call and its output, the text) is one message, at the
    // time of the turn's first item.
    expect(
      messages.map((record) => [
        record.message.id,
        record.message.role,
        record.parentId,
        record.createdAt,
      ]),
    ).toEqual([
      ["codex-2", "user", null, "2026-03-04T09:12:05.327Z"],
      ["codex-3", "assistant", "codex-2", "2026-03-04T09:12:08.114Z"],
      ["codex-13", "user", "codex-3", "2026-03-04T10:02:47.771Z"],
      ["codex-14", "assistant", "codex-13", "2026-03-04T10:02:53.406Z"],
      ["codex-15", "user", "codex-14", "2026-03-04T10:10:31.092Z"],
      ["codex-16", "assistant", "codex-15", "2026-03-04T10:10:34.870Z"],
    ]);
    expect(textOf(messages[2]!.message)).toBe(
      "does anyone own the map legend item?\n",
    );
    // A step per model call: a new one after each batch of tool outputs.
    const [first, second, third] = [1, 3, 5].map((index) =>
      stepsOf(messages[index]!.message),
    );
    // (Its reasoning is encrypted only, so no part.)
    expect(first).toEqual([
      ["tool-exec_command"],
      ["tool-exec_command", "tool-exec_command"],
      ["text"],
    ]);
    expect(textOf(messages[1]!.message)).toMatch(
      /^Follow-ups that touch the release checklist:/,
    );
    expect(second).toEqual([["text"]]);
    expect(textOf(messages[3]!.message)).toMatch(/^Yes: the notes give it/);
    // A reasoning summary is a part; a call the app names in a namespace keeps its own name.
    expect(third).toEqual([
      ["reasoning", "tool-js"],
      ["tool-exec_command", "tool-exec_command"],
      ["tool-exec_command"],
      ["text"],
    ]);
    // Every call of the turn has its output.
    expect(
      messages[5]!.message.parts.filter(
        (part) =>
          part.type.startsWith("tool-") && part.state !== "output-available",
      ),
    ).toEqual([]);
    expect(messages[5]!.message.parts[2]).toMatchObject({
      type: "tool-js",
      toolCallId: "call_t3Js000004",
      input: { title: "Open release board" },
    });
    expect(parsed!.activeLeafId).toBe("codex-16");
    // Named after the request, not the list of files the app puts before it.
    expect(parsed!.title).toBe(
      "list the follow-ups from the kickoff notes that touch the...",
    );
    const manager = sqliteManager();
    const [info] = await importConversations(manager, [parsed!]);
    const history = await manager.getSession(info!.id).getHistory();
    expect(history.map((message) => [message.id, message.role])).toEqual([
      ["codex-2", "user"],
      ["codex-3", "assistant"],
      ["codex-13", "user"],
      ["codex-14", "assistant"],
      ["codex-15", "user"],
      ["codex-16", "assistant"],
    ]);
  });

  it("imports a rollout again without adding a message: a turn keeps its first step's id", async () => {
    const manager = sqliteManager();
    const [info] = await importConversations(
      manager,
      parseConversations(DESKTOP, { fileName: DESKTOP_NAME }),
    );
    const before = (await manager.exportSession(info!.id)).messages;
    expect(before.map((record) => record.message.id)).toEqual([
      "codex-2",
      "codex-3",
      "codex-13",
      "codex-14",
      "codex-15",
      "codex-16",
    ]);
    for (const existing of ["skip", "update"] as const) {
      const report = await importConversationsWithReport(
        manager,
        parseConversations(DESKTOP, { fileName: DESKTOP_NAME }),
        { existing },
      );
      expect(report.created).toEqual([]);
      expect(report.messagesWritten).toBe(0);
    }
    expect((await manager.exportSession(info!.id)).messages).toEqual(before);
    expect(await manager.list()).toHaveLength(1);
  });

  it("reads a prompt written both as a user message item and as an event once", () => {
    const [parsed] = parseConversations(CLI);
    const messages = parsed!.snapshot.messages;
    expect(
      messages.map((record) => [record.message.id, record.message.role]),
    ).toEqual([
      ["codex-3", "system"],
      ["codex-4", "user"],
      ["codex-6", "user"],
      ["codex-8", "assistant"],
    ]);
    expect(stepsOf(recordOf(messages, "codex-8")!.message)).toEqual([
      // The first step's reasoning is encrypted only: no part.
      ["tool-exec_command"],
      ["tool-write_stdin"],
      ["text"],
    ]);
    expect(textOf(recordOf(messages, "codex-6")!.message)).toBe(
      "which scripts does package.json define?",
    );
  });

  it("marks the context Codex writes itself as injectedContext, and names the session after the prompt", async () => {
    const kinds = (text: string, name?: string) =>
      parseConversations(text, { fileName: name })[0]!.snapshot.messages.map(
        (record) => [
          record.message.id,
          (record.message.metadata as Record<string, unknown> | undefined)
            ?.injectedContext ?? null,
        ],
      );
    expect(kinds(CLI).slice(0, 3)).toEqual([
      ["codex-3", "permissions"],
      ["codex-4", "agents-md"],
      ["codex-6", null],
    ]);
    expect(kinds(REAL, REAL_NAME)).toEqual([
      ["codex-2", "agents-md"],
      ["codex-3", "environment-context"],
      ["codex-4", null],
    ]);
    expect(kinds(TOOLS).slice(0, 2)).toEqual([
      ["codex-2", "environment-context"],
      ["codex-4", null],
    ]);
    // Stored whole: the AGENTS.md text is all there.
    const [parsed] = parseConversations(CLI);
    const agents = recordOf(parsed!.snapshot.messages, "codex-4")!.message;
    expect(agents.parts.map((part) => String(part.text).slice(0, 22))).toEqual([
      "# AGENTS.md instructio",
      "<environment_context>\n",
    ]);
    const manager = sqliteManager();
    const [info] = await importConversations(manager, [parsed!]);
    expect(info!.name).toBe("which scripts does package.json define?");
    const stored = await manager.getSession(info!.id).getMessage("codex-3");
    expect(stored!.metadata).toEqual({ injectedContext: "permissions" });
  });
});
