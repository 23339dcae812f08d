// Codex CLI rollouts: a real rollout (messages only) and one written from the format with every
// kind of tool call, reasoning and a compaction, detected from their content and imported with
// the calls as AI SDK tool parts.
import { describe, expect, it } from "vitest";
import {
  detectFormat,
  importConversations,
  parseConversations,
} from "../../src/formats/index.js";
import { fixture, ids, sqliteManager, textOf } from "./support.js";

const REAL_NAME =
  "rollout-2025-12-28T12-18-30-019b64e5-57fa-7463-b644-fba7e456f905.jsonl";
const REAL = fixture(REAL_NAME);
const TOOLS = fixture("codex-rollout-tools.jsonl");

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
      ["codex-13", "assistant"],
      ["codex-16", "assistant"],
      ["codex-19", "assistant"],
      ["codex-22", "user"],
      ["codex-23", "assistant"],
    ]);
    // One assistant message per step: a tool output ends the step.
    const [first, second, shell, third] = messages.slice(2, 6);
    expect(first!.parts.map((part) => part.type)).toEqual([
      "reasoning",
      "tool-shell",
      "tool-shell",
    ]);
    expect(first!.parts[1]).toEqual({
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
    expect(second!.parts.map((part) => [part.type, part.state])).toEqual([
      ["text", undefined],
      ["tool-apply_patch", "output-available"],
    ]);
    expect(shell!.parts[0]).toMatchObject({
      type: "tool-local_shell",
      input: { type: "exec", command: ["npm", "test"] },
      output: { output: "Tests: 14 passed, 14 total\n" },
    });
    expect(second!.parts[1]!.output).toBe(
      "Success. Updated the following files:\nM src/cli.ts\n",
    );
    expect(textOf(third)).toBe(
      "Fixed: `--metric` now prints Celsius; all 14 tests pass.",
    );
    expect(messages[7]!.parts[0]).toMatchObject({
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
    ).toEqual([["text"], ["tool-shell"], ["text"]]);
  });
});
