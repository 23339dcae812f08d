// Erase and prune (arbor-memory/testing: src/testing/erase/erase-scenarios.ts) inside workerd: each scenario runs in a
// Durable Object on its own SQLite, bundled by rolldown and run by miniflare, and scans every
// table the object can read (FTS5 shadow tables included) for the erased text.
import { describeWorkerdScenarios } from "../providers/support/workerd-scenarios.js";
import { ERASE_SCENARIOS } from "../../src/testing/erase/erase-scenarios.js";

describeWorkerdScenarios({
  title: "erase and prune in a Durable Object",
  entry: new URL("./erase/erase-worker.mjs", import.meta.url),
  className: "EraseRuns",
  scenarios: Object.keys(ERASE_SCENARIOS),
});
