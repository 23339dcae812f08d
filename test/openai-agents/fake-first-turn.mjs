// The first "process" of runner-restart.test.ts, run by `node` against the built package (the
// package imports itself by name, so the exports map picks the dist/ entries): the Agents SDK's
// Runner with the fake scripted model runs one turn with a tool call on an ArborSession over a
// SQLite file, stores the turn's usage, prints the session's items, and the process exits.
// Usage: node fake-first-turn.mjs <sqlite file> <session id>
import { Agent, Runner, tool } from "@openai/agents-core";
import { ArborSession } from "arbor-memory/openai-agents";
import { SessionManager } from "arbor-memory/session";
import { sqliteBackend } from "arbor-memory/sqlite";
import { z } from "zod";
import { callTool, say, ScriptedModel } from "./fake-scripted-model.mjs";

const [file, sessionId] = process.argv.slice(2);
const backend = sqliteBackend(file);
const session = new ArborSession({
  manager: SessionManager.create(backend),
  sessionId,
});
const agent = new Agent({
  name: "Planner",
  instructions: "Plan trips.",
  model: new ScriptedModel([
    [callTool("get_weather", { city: "Kyoto" }, "call_1")],
    [say("Kyoto is sunny: go.")],
  ]),
  tools: [
    tool({
      name: "get_weather",
      description: "The weather in a city",
      parameters: z.object({ city: z.string() }),
      execute: async ({ city }) => `Sunny in ${city}`,
    }),
  ],
});
const result = await new Runner({ tracingDisabled: true }).run(
  agent,
  "Should I go to Kyoto?",
  { session },
);
await session.storeRunUsage(result);
const items = await session.getItems();
backend.sqlite.close();
process.stdout.write(
  JSON.stringify({ finalOutput: result.finalOutput, items }),
);
