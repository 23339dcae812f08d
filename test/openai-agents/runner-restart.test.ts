// The Agents SDK's own Runner over ArborSession, with a scripted (fake) model: a conversation with
// a tool call run by a child process against the built package (fake-first-turn.mjs; `npm run
// build` first) that exits, continued after that restart by a new ArborSession over the same
// SQLite file in this process, then branched from its second turn.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Agent, Runner, tool, type AgentInputItem } from "@openai/agents-core";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ArborSession } from "../../src/openai-agents/index.js";
import { SessionManager } from "../../src/session/index.js";
import { sqliteBackend, type SqliteBackend } from "../../src/sqlite/index.js";
import { say, ScriptedModel } from "./scripted-model.js";

const FIRST_TURN = fileURLToPath(
  new URL("fake-first-turn.mjs", import.meta.url),
);
const run = promisify(execFile);

const folder = mkdtempSync(join(tmpdir(), "arbor-openai-agents-runner-"));
const file = join(folder, "agent.db");
const opened: SqliteBackend[] = [];
afterEach(() => {
  for (const backend of opened.splice(0)) backend.sqlite.close();
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** A "process": its own connection to the file, manager, session, model and runner. */
function start(script: ConstructorParameters<typeof ScriptedModel>[0]) {
  const backend = sqliteBackend(file);
  opened.push(backend);
  const manager = SessionManager.create(backend);
  const session = new ArborSession({ manager, sessionId: "trip" });
  const model = new ScriptedModel(script);
  const weather = tool({
    name: "get_weather",
    description: "The weather in a city",
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => `Sunny in ${city}`,
  });
  const agent = new Agent({
    name: "Planner",
    instructions: "Plan trips.",
    model,
    tools: [weather],
  });
  const runner = new Runner({ tracingDisabled: true });
  return { manager, session, model, agent, runner };
}

describe("Runner over ArborSession with a scripted (fake) model", () => {
  it("continues the conversation after a process restart, and branches from an earlier turn", async () => {
    // First process: one turn with a tool call, then the process exits.
    const { stdout } = await run(process.execPath, [FIRST_TURN, file, "trip"]);
    const first = JSON.parse(stdout) as {
      finalOutput: string;
      items: AgentInputItem[];
    };
    expect(first.finalOutput).toBe("Kyoto is sunny: go.");
    const stored = first.items;
    expect(stored.map((item) => item.type ?? "message")).toEqual([
      "message",
      "function_call",
      "function_call_result",
      "message",
    ]);

    // After the restart: the model is sent the whole first turn before the new message.
    const second = start([[say("Book the ryokan in Gion.")]]);
    expect(await second.session.getItems()).toEqual(stored);
    const turn2 = await second.runner.run(
      second.agent,
      "Where should I stay?",
      { session: second.session },
    );
    expect(turn2.finalOutput).toBe("Book the ryokan in Gion.");
    await second.session.storeRunUsage(turn2);
    expect(second.model.requests[0]).toEqual([
      ...stored,
      { type: "message", role: "user", content: "Where should I stay?" },
    ]);
    const turns = await second.session.listTurns();
    expect(
      turns.map(({ turn, text, usage }) => ({ turn, text, usage })),
    ).toEqual([
      {
        turn: 1,
        text: "Should I go to Kyoto?",
        usage: {
          requests: 2,
          inputTokens: 300,
          outputTokens: 20,
          totalTokens: 320,
        },
      },
      {
        turn: 2,
        text: "Where should I stay?",
        usage: {
          requests: 1,
          inputTokens: 100,
          outputTokens: 10,
          totalTokens: 110,
        },
      },
    ]);

    // Branch from turn 2: the model sees turn 1 only, and the old turn 2 stays in the tree.
    await second.session.branchFrom(2);
    const third = start([[say("A machiya near Nishiki.")]]);
    await third.runner.run(third.agent, "Where should I stay on a budget?", {
      session: third.session,
    });
    expect(third.model.requests[0]).toEqual([
      ...stored,
      {
        type: "message",
        role: "user",
        content: "Where should I stay on a budget?",
      },
    ]);
    expect((await third.session.listTurns()).map((turn) => turn.text)).toEqual([
      "Should I go to Kyoto?",
      "Where should I stay on a budget?",
    ]);
    await third.session.switchBranch(turns[1]!.messageId);
    expect((await third.session.getItems()).at(-1)).toMatchObject({
      role: "assistant",
      content: [{ text: "Book the ryokan in Gion." }],
    });
    expect(await third.session.getSessionUsage()).toEqual({
      inputTokens: 400,
      outputTokens: 30,
      totalTokens: 430,
    });
  });
});
