// The first "process" of state-graph.test.ts, run by `node` against the built package (dist/): a
// StateGraph whose model is a fake (FakeListChatModel of @langchain/core, scripted answers) runs
// one turn of a thread on ArborCheckpointSaver over a SQLite file, then the process exits. The
// package imports itself by name, so the exports map of package.json picks the dist/ entries.
// Usage: node fake-first-turn.mjs <sqlite file> <thread id> <question> <answer>
import { HumanMessage } from "@langchain/core/messages";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import {
  END,
  MessagesAnnotation,
  START,
  StateGraph,
} from "@langchain/langgraph";
import { ArborCheckpointSaver } from "arbor-memory/langgraph";
import { sqliteBackend } from "arbor-memory/sqlite";

const [file, threadId, question, answer] = process.argv.slice(2);

const backend = sqliteBackend(file);
const model = new FakeListChatModel({ responses: [answer] });
const graph = new StateGraph(MessagesAnnotation)
  .addNode("model", async (state) => ({
    messages: [await model.invoke(state.messages)],
  }))
  .addEdge(START, "model")
  .addEdge("model", END)
  .compile({ checkpointer: new ArborCheckpointSaver(backend) });
const result = await graph.invoke(
  { messages: [new HumanMessage(question)] },
  { configurable: { thread_id: threadId } },
);
backend.sqlite.close();
process.stdout.write(
  JSON.stringify(result.messages.map((message) => message.text)),
);
