// Runs LangGraph's own checkpointer conformance suite (`@langchain/langgraph-checkpoint-validation`,
// unchanged) inside vitest. The suite calls Jest-style globals (`describe`, `it`, `expect`…), which
// this project's vitest config does not install, so they are handed over before it registers.
import {
  validate,
  type CheckpointSaverTestInitializer,
} from "@langchain/langgraph-checkpoint-validation";
import {
  afterAll,
  afterEach,
  beforeAll,
  beforeEach,
  describe,
  expect,
  it,
  test,
} from "vitest";
import type { ArborCheckpointSaver } from "../../../src/langgraph/index.js";

/** Registers the official suite for the saver `initializer` creates. */
export function validateSaver(
  initializer: CheckpointSaverTestInitializer<ArborCheckpointSaver>,
): void {
  Object.assign(globalThis, {
    afterAll,
    afterEach,
    beforeAll,
    beforeEach,
    describe,
    expect,
    it,
    test,
  });
  validate(initializer);
}
