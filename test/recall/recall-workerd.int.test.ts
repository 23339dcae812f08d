// Recall (test/recall/recall-scenarios.ts) inside workerd: each scenario runs in a Durable
// Object on its own SQLite, bundled by rolldown and run by miniflare. The restart there is a
// new manager over the same storage (the queue is in the object's SQLite).
import { describeWorkerdScenarios } from "../providers/support/workerd-scenarios.js";
import { RECALL_SCENARIOS } from "./recall-scenarios.js";

describeWorkerdScenarios({
  title: "recall in a Durable Object",
  entry: new URL("./recall-worker.mjs", import.meta.url),
  className: "RecallRuns",
  scenarios: Object.keys(RECALL_SCENARIOS),
});
